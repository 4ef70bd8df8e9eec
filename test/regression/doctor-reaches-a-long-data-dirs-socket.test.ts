/**
 * `memtrace doctor` measured a data dir's socket path in characters, where the worker (and the
 * kernel) count bytes: a data dir with non-ASCII characters, under 100 characters but over the 108
 * bytes a socket address holds, was bound by the worker by its name inside the data dir, while
 * doctor tried the full path and reported a healthy worker's socket as taking no connections. It
 * also held its change of working directory across an await.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIO } from '../support/cli-io.js';
import { startChildWorker, type ChildWorker } from '../support/child-worker.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('memtrace doctor and a data dir whose socket path is long in bytes', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  let worker: ChildWorker | undefined;
  afterEach(async () => {
    await worker?.stop();
    temp?.cleanup();
  });

  it('reaches the running worker’s socket, and leaves the working directory as it was', async () => {
    temp = makeTempDir();
    const home = path.join(temp.dir, 'home');
    fs.mkdirSync(home);
    const dataDir = path.join(temp.dir, 'å'.repeat(45));
    const socket = path.join(dataDir, 'worker.sock');
    expect(socket.length).toBeLessThan(100);
    expect(Buffer.byteLength(socket)).toBeGreaterThan(108);
    const env = { HOME: home, PATH: '/usr/bin:/bin', MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' };
    worker = await startChildWorker({ ...env, MEMTRACE_PROVIDER: 'none' });

    const cwd = process.cwd();
    const out = captureIO({ env, cwd: home });
    await main(['doctor', '--json'], out.io);
    const findings = (JSON.parse(out.stdout()) as { findings: Array<{ check: string; status: string }> }).findings;
    expect(findings.find((f) => f.check === 'socket')).toMatchObject({ status: 'ok' });
    expect(findings.find((f) => f.check === 'worker')).toMatchObject({ status: 'ok' });
    expect(process.cwd()).toBe(cwd);
  });
});
