import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { readWorkerInfo } from '../../src/data-dir/index.js';
import { runHookProcess } from '../support/hook-process.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { installCopy, setVersion } from '../support/package-copy.js';
import { stopStartedWorker } from '../support/started-worker.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Bug (issue 35, item 1): after an upgrade the old worker served every later hook event, for
 * ever: nothing told it a newer version was installed, and the new CLI's `worker status` did not
 * say. Two real installs (copies of this package at 0.2.0 and 0.3.0) and real worker processes.
 */
const FIXTURE = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/claude-code/hooks/post-tool-use-read.json'), 'utf8');

describe('a worker older than an install its hooks come from', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let dataDir: string;
  afterEach(async () => {
    await stopStartedWorker(dataDir, 0);
    temp?.cleanup();
  });

  const setup = () => {
    temp = makeTempDir('memtrace-takeover-');
    dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    buildNativeForwarderInto(dataDir);
    return { env: { HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0', MEMTRACE_PORT: '0' } };
  };
  const memtrace = (bin: string, args: string[], env: Record<string, string>) =>
    execFileSync(process.execPath, [path.join(bin, 'memtrace.cjs'), ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
  let sequence = 0;
  const fire = (bin: string, env: Record<string, string>) => {
    sequence += 1;
    const payload = FIXTURE.replace('toolu_e2e_read', `toolu_take_over_${sequence}`);
    return runHookProcess(['sh', path.join(bin, 'memtrace-hook'), 'claude-code', 'post-tool-use', 'settings', process.execPath], Buffer.from(payload), {
      env,
      cwd: temp.dir,
    });
  };
  const startsLogged = () =>
    [...fs.readFileSync(path.join(dataDir, 'logs', 'worker.log'), 'utf8').matchAll(/"msg":"worker starting, version ([^,"]+), pid \d+"/g)].map((m) => m[1]);
  const queued = () => {
    const db = new Database(path.join(dataDir, 'memtrace.db'), { readonly: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM queue WHERE json_extract(payload, '$.tool_use_id') LIKE 'toolu_take_over_%'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  it('hands over to the newer install at its first hook, once; an older install’s hooks never take it back', { timeout: 90_000 }, async () => {
    const { env } = setup();
    const older = installCopy(path.join(temp.dir, 'project/node_modules/memtrace'), '0.2.0');
    const newer = installCopy(path.join(temp.dir, 'global/lib/node_modules/memtrace'), '0.3.0');
    expect(memtrace(older, ['worker', 'start'], env)).toContain('started');
    for (let i = 0; i < 3; i += 1) expect((await fire(older, env)).code).toBe(0);
    const first = readWorkerInfo(dataDir)!;
    expect(first).toMatchObject({ version: '0.2.0', package: older });

    // The newer install's first hook: stored, and the newer version takes over.
    await fire(newer, env);
    await waitFor(() => readWorkerInfo(dataDir)?.version === '0.3.0' && readWorkerInfo(dataDir)?.port != null, 20_000);
    const second = readWorkerInfo(dataDir)!;
    expect(second.pid).not.toBe(first.pid);
    expect(second.package).toBe(newer);
    const health = (await (await fetch(`http://127.0.0.1:${second.port}/health`)).json()) as { version: string };
    expect(health.version).toBe('0.3.0');

    // Both installs' hooks now reach the newer worker; none restarts it.
    for (let i = 0; i < 4; i += 1) expect((await fire(i % 2 === 0 ? older : newer, env)).code).toBe(0);
    await waitFor(() => queued() === 8);
    expect(readWorkerInfo(dataDir)!.pid).toBe(second.pid);
    expect(startsLogged()).toEqual(['0.2.0', '0.3.0']);
    expect(memtrace(newer, ['worker', 'status'], env)).toMatch(/version {6}0\.3\.0\n/);
  });

  it('takes over after an upgrade in place: the same folder, its package.json newer', { timeout: 90_000 }, async () => {
    const { env } = setup();
    const dir = path.join(temp.dir, 'global/lib/node_modules/memtrace');
    const bin = installCopy(dir, '0.2.0');
    memtrace(bin, ['worker', 'start'], env);
    await fire(bin, env);
    const before = readWorkerInfo(dataDir)!;
    setVersion(dir, '0.3.0');
    await fire(bin, env);
    await waitFor(() => readWorkerInfo(dataDir)?.version === '0.3.0' && readWorkerInfo(dataDir)?.port != null, 20_000);
    expect(readWorkerInfo(dataDir)!.pid).not.toBe(before.pid);
    expect(readWorkerInfo(dataDir)!.package).toBe(bin);
    await fire(bin, env);
    await waitFor(() => queued() === 3);
    expect(startsLogged()).toEqual(['0.2.0', '0.3.0']);
  });
});
