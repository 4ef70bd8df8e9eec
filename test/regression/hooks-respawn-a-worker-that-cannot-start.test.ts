import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { readStartState, writeContextFile } from '../../src/data-dir/index.js';
import { runHookProcess } from '../support/hook-process.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { stopStartedWorker } from '../support/started-worker.js';
import { makeTempDir } from '../support/temp-dir.js';
import { pathWithoutPerl } from '../support/tool-path.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Bug (issue 35, item 4): nothing bounded how often hooks started a worker that could not start,
 * and nothing said why. A damaged store, 20 real hook firings through the forwarder (native,
 * then perl, then the Node hook, as on a machine with a compiler), real worker processes.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const HOOKS = path.join(ROOT, 'test/fixtures/claude-code/hooks');
const FIRINGS = 20;

describe('a worker that cannot start', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let dataDir: string;
  afterEach(async () => {
    await stopStartedWorker(dataDir, 0);
    temp?.cleanup();
  });

  it('is started once per step of the backoff, not per hook; says why; and drains every spooled event once when fixed', async () => {
    temp = makeTempDir('memtrace-cannot-start-');
    dataDir = path.join(temp.dir, 'data');
    const project = path.join(temp.dir, 'project');
    fs.mkdirSync(project);
    fs.mkdirSync(dataDir, { mode: 0o700 });
    buildNativeForwarderInto(dataDir);
    const dbFile = path.join(dataDir, 'memtrace.db');
    fs.writeFileSync(dbFile, Buffer.alloc(64 * 1024, 7), { mode: 0o600 });
    const env = { HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0', MEMTRACE_PORT: '0' };
    const forwarder = ['sh', path.join(ROOT, 'bin/memtrace-hook'), 'claude-code'];
    const fire = (event: string, file: string, replace: [string, string] = ['', ''], extraEnv: Record<string, string> = {}) =>
      runHookProcess([...forwarder, event, 'settings', process.execPath], Buffer.from(fs.readFileSync(path.join(HOOKS, file), 'utf8').replaceAll(...replace)), {
        env: { ...env, ...extraEnv },
        cwd: project,
      });
    const spooled = () =>
      fs.existsSync(path.join(dataDir, 'spool/events')) ? fs.readdirSync(path.join(dataDir, 'spool/events')).filter((n) => n.endsWith('.json')).length : 0;
    const startTimes = () =>
      fs.existsSync(path.join(dataDir, 'logs/worker.log'))
        ? [...fs.readFileSync(path.join(dataDir, 'logs/worker.log'), 'utf8').matchAll(/\{"ts":"([^"]+)","level":"info","msg":"worker starting, version/g)].map(
            (m) => Date.parse(m[1]!),
          )
        : [];

    for (let i = 0; i < FIRINGS; i += 1)
      expect((await fire('post-tool-use', 'post-tool-use-read.json', ['toolu_e2e_read', `toolu_cannot_start_${i}`])).code).toBe(0);
    await waitFor(() => spooled() === FIRINGS, 20_000);
    await waitFor(() => readStartState(dataDir)?.last_error != null, 20_000);

    // Attempts went through the shared schedule: never closer than its steps (15 s, then 30 s …).
    const starts = startTimes();
    expect(starts.length).toBeGreaterThanOrEqual(1);
    expect(starts.length).toBeLessThan(FIRINGS);
    for (let i = 1; i < starts.length; i += 1) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(15_000 * 2 ** (i - 1) - 1_000);
    const state = readStartState(dataDir)!;
    expect(state.attempts).toBe(starts.length);
    expect(state.last_error).toMatchObject({ reason: 'store_corrupt', detail: `the store ${dbFile} is damaged (SQLITE_NOTADB)` });

    // `worker status` says what is wrong, what to do, and what waits.
    const status = (() => {
      try {
        execFileSync(process.execPath, [path.join(ROOT, 'bin/memtrace.cjs'), 'worker', 'status'], {
          env: { PATH: process.env.PATH ?? '', ...env },
          encoding: 'utf8',
        });
        return '';
      } catch (error) {
        return (error as { stdout: string }).stdout;
      }
    })();
    expect(status).toContain(`problem      memtrace's worker (0.2.0) cannot start: the store ${dbFile} is damaged (SQLITE_NOTADB). To fix: move it aside`);
    expect(status).toContain(`spool        ${FIRINGS} hook event(s) waiting for the worker`);

    // The next SessionStart's context says it in one line, on top of the memory kept for the project (perl and shell-only paths alike).
    writeContextFile(dataDir, project, `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '# kept memory' } })}\n`);
    for (const extraEnv of [{}, { PATH: pathWithoutPerl() }] as Array<Record<string, string>>) {
      const start = await fire('session-start', 'session-start.json', ['/home/user/project', project], extraEnv);
      const context = (JSON.parse(start.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      const [notice, , ...rest] = context.split('\n');
      expect(notice).toMatch(/^> memtrace's worker \(0\.2\.0\) cannot start: the store .* is damaged \(SQLITE_NOTADB\)\. To fix: /);
      expect(rest.join('\n')).toBe('# kept memory');
    }

    // The cause goes away; the schedule's next step comes (as if its 15 s had passed): the next hook starts a worker that drains the spool, each event once.
    fs.renameSync(dbFile, `${dbFile}.damaged`);
    const waiting = readStartState(dataDir)!;
    fs.writeFileSync(path.join(dataDir, 'worker-start.json'), JSON.stringify({ ...waiting, next_attempt_at: new Date(Date.now() - 1).toISOString() }));
    await fire('post-tool-use', 'post-tool-use-read.json', ['toolu_e2e_read', 'toolu_cannot_start_last']);
    await waitFor(() => spooled() === 0, 30_000);
    const db = new Database(path.join(dataDir, 'memtrace.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT tool_use_id AS id FROM queue WHERE tool_use_id IS NOT NULL').all() as Array<{ id: string }>;
      const ids = rows.map((r) => r.id).filter((id) => id.startsWith('toolu_cannot_start_'));
      expect(ids).toHaveLength(FIRINGS + 1);
      expect(new Set(ids).size).toBe(FIRINGS + 1);
    } finally {
      db.close();
    }
    // The worker that runs clears the reason (and, once it has run a minute, the whole file).
    await waitFor(() => readStartState(dataDir)?.last_error === null, 20_000);
  }, 120_000);
});
