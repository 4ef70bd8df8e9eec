import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { readWorkerInfo, runningWorker } from '../../src/data-dir/index.js';
import { workerNodeFlags } from '../../src/hook/worker-node-flags.js';
import { captureIO } from '../support/cli-io.js';
import { freePort } from '../support/free-port.js';
import { makeTempDir } from '../support/temp-dir.js';

describe("the background worker's V8 flags", () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  afterEach(() => {
    const info = temp ? readWorkerInfo(path.join(temp.dir, 'data')) : null;
    if (info) {
      try {
        process.kill(info.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    temp?.cleanup();
  });

  it('turns off the memory reducer and caps the young space on the V8 versions known to have those flags', () => {
    for (const v8 of ['11.3.244.8-node.33', '12.4.254.21-node.33', '13.6.233.10-node.18'])
      expect(workerNodeFlags(v8)).toEqual(['--no-memory-reducer', '--max-semi-space-size=4']);
  });

  it('gives no flag to a V8 it does not know, which would refuse to start on one it lacks', () => {
    for (const v8 of ['14.1.146.11-node.1', '10.2.154.26-node.36', '', 'unknown']) expect(workerNodeFlags(v8)).toEqual([]);
  });

  it('starts the background worker with them, and the worker runs', async () => {
    temp = makeTempDir();
    const env = {
      HOME: temp.dir,
      MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'),
      MEMTRACE_PORT: String(await freePort()),
      MEMTRACE_PROVIDER: 'none',
      MEMTRACE_TELEMETRY: '0',
      PATH: process.env.PATH ?? '',
    };
    const started = captureIO({ env });
    expect(await main(['worker', 'start'], started.io), started.stderr()).toBe(0);
    const { pid } = runningWorker(env.MEMTRACE_DATA_DIR)!;
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const script = argv.findIndex((a) => a.endsWith('memtrace.cjs'));
    // Node's own options come before the script; after it they would be memtrace's arguments.
    expect(argv.slice(1, script)).toEqual([...workerNodeFlags(process.versions.v8)]);
    expect(argv.slice(1, script).length).toBeGreaterThan(0);
    const stopped = captureIO({ env });
    expect(await main(['worker', 'stop'], stopped.io), stopped.stderr()).toBe(0);
  });
});
