/**
 * SLOW (~2 min, most of it building the old version): an upgrade from a memtrace that predates
 * take-over. The worker running is main's build from before this feature (commit 44478ae, the
 * tree `git archive` gives, built with `npm run build` against this checkout's node_modules): it
 * writes no `package` in worker.json and answers the hand-over request 404. The newer install's
 * Perl forwarder notices, starts `worker start` of its own install once, and that worker stops
 * the old one once it has no observer call in flight.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWorkerInfo } from '../../src/data-dir/index.js';
import { fireHook, hookPayload } from '../support/forwarder-session.js';
import { installCopy } from '../support/package-copy.js';
import { stopStartedWorker } from '../support/started-worker.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BEFORE_TAKE_OVER = '44478ae';
const available = spawnSync('git', ['cat-file', '-e', `${BEFORE_TAKE_OVER}^{commit}`], { cwd: ROOT }).status === 0;
if (!available) console.warn(`skipping the upgrade from before take-over: commit ${BEFORE_TAKE_OVER} is not in this clone`);

describe.skipIf(!available)('an upgrade from a worker that predates take-over', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let oldBin: string;
  let dataDir: string;
  beforeAll(() => {
    temp = makeTempDir('memtrace-before-take-over-');
    const old = path.join(temp.dir, 'old');
    fs.mkdirSync(old);
    execFileSync('sh', ['-c', `git archive ${BEFORE_TAKE_OVER} | tar -x -C "${old}"`], { cwd: ROOT });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(old, 'node_modules'));
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: old, stdio: 'ignore', timeout: 600_000 });
    oldBin = path.join(old, 'bin');
  }, 600_000);
  afterAll(async () => {
    if (dataDir) await stopStartedWorker(dataDir, 0);
    temp?.cleanup();
  }, 60_000);

  it('is stopped once idle and replaced by the newer install after its first hooks, starting it once, losing nothing', { timeout: 180_000 }, async () => {
    dataDir = path.join(temp.dir, 'data');
    const cwd = path.join(temp.dir, 'work');
    fs.mkdirSync(cwd);
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: temp.dir,
      MEMTRACE_DATA_DIR: dataDir,
      MEMTRACE_PROVIDER: 'none',
      MEMTRACE_TELEMETRY: '0',
      MEMTRACE_PORT: '0',
    };
    const newBin = installCopy(path.join(temp.dir, 'new'), '0.3.0');
    execFileSync(process.execPath, [path.join(oldBin, 'memtrace.cjs'), 'worker', 'start'], { env });
    const old = readWorkerInfo(dataDir)!;
    expect(old.package).toBeUndefined();
    const session = 'dddddddd-0000-4000-8000-000000000001';
    const tool = (bin: string, i: number) =>
      fireHook(bin, 'post-tool-use', hookPayload('post-tool-use-read.json', session, cwd, `toolu_before_${i}`), { env, cwd });
    await tool(oldBin, 0);
    // The newer install's hooks, back to back (Perl: no native build for its source yet).
    for (let i = 1; i <= 5; i += 1) expect((await tool(newBin, i)).code).toBe(0);
    await waitFor(() => readWorkerInfo(dataDir)?.version === '0.3.0' && readWorkerInfo(dataDir)?.port != null, 90_000);
    const db = () => new Database(path.join(dataDir, 'memtrace.db'), { readonly: true });
    const ids = () => {
      const d = db();
      try {
        return (d.prepare('SELECT tool_use_id FROM queue WHERE tool_use_id IS NOT NULL ORDER BY id').all() as Array<{ tool_use_id: string }>).map(
          (r) => r.tool_use_id,
        );
      } finally {
        d.close();
      }
    };
    await waitFor(() => ids().length === 6, 30_000);
    expect(new Set(ids()).size).toBe(6);
    const log = fs.readFileSync(path.join(dataDir, 'logs/worker.log'), 'utf8');
    expect(log).toContain('memtrace 0.2.0 predates take-over; stopping it once its observer calls are done');
    // One start of the newer version, not one per hook.
    expect(log.match(/worker starting, version 0\.3\.0/g)).toHaveLength(1);
  });
});
