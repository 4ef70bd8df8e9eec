import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, parseIntegerFlag, UsageError, type CliIO } from '../command.js';
import { loadWorkerConfig } from '../../config.js';
import { claimStartAttempt, readWorkerInfo, runningWorker } from '../../data-dir/index.js';
import { sqliteDriver } from '../../store/index.js';
import { installToStart, spawnWorkerDetached } from '../../hook/start-worker.js';
import { isNewerVersion } from '../../version-order.js';
import { describeLifecycle, readWorkerLifecycle } from '../worker-lifecycle.js';
import { MEMTRACE_BIN } from '../memtrace-bin.js';
import { describeDegraded, workerHealth } from '../worker-health.js';
import { describeObserver, readSpend } from '../observer-spend.js';
import { observerEnvSet, unseenByWorker, unseenLine } from '../../providers/observer-env.js';
import { readShareStatus, sharingStatus, type ShareStatus } from '../../share/index.js';

export const WORKER_CONTROL_USAGE = `usage: memtrace worker start [--port N] [--wait-ms N]
       memtrace worker stop [--wait-ms N]
       memtrace worker status [--json]

start    runs the worker in the background (one per data dir; its output goes to
         DATA_DIR/logs/worker.out, its log to DATA_DIR/logs/worker.log) and waits until it answers
stop     asks the running worker to stop (SIGTERM: in-flight messages are released, rollups
         flushed) and waits until it has
status   whether a worker runs on this data dir, its port, health, queue, hook counters, which
         observer runs and why, its spend (calls, tokens in/out, cost per day and per session;
         --json: key observer) against MEMTRACE_OBSERVER_BUDGET_TOKENS, the store's size against
         MEMTRACE_MAX_DB_MB and what retention last removed, and how sharing stands (--json: key
         share)`;

const POLL_MS = 100;

export async function runWorkerControl(action: 'start' | 'stop' | 'status', args: string[], io: CliIO): Promise<number> {
  const loaded = loadWorkerConfig(io.env, io.env.HOME || os.homedir());
  if (!loaded.ok) throw new UsageError(loaded.errors.join('; '));
  const { dataDir } = loaded.config;
  const say = (line: string) => io.stdout.write(`${line}\n`);
  if (args.includes('--help') || args.includes('-h')) {
    say(WORKER_CONTROL_USAGE);
    return EXIT_OK;
  }
  if (action === 'status') {
    const { values } = parseCommandArgs(args, { json: { type: 'boolean' } });
    const health = await workerHealth(dataDir);
    // A worker that cannot start for want of its SQLite driver says so, with the fix (SqliteDriverError), not "not running".
    if (!health.running) sqliteDriver();
    const full = health.health ?? null;
    const spend = readSpendQuietly(loaded.config.dbFile);
    const observerHealth = (full?.observer as Record<string, unknown> | undefined) ?? undefined;
    // A key in this shell (or a later agent's) that the worker, started earlier, never saw.
    const seen = observerHealth?.env_seen;
    const unseen = Array.isArray(seen) ? unseenByWorker(observerEnvSet(io.env), seen as string[]) : [];
    const share = shareQuietly(dataDir, loaded.config.dbFile);
    const lifecycle = readWorkerLifecycle(dataDir, health.running ? readWorkerInfo(dataDir) : null, Date.now());
    if (values.json) {
      const observer = { ...(observerHealth ?? {}), ...(spend ?? { days: [], sessions: [] }), env_unseen: unseen };
      say(JSON.stringify({ data_dir: dataDir, ...health, observer, lifecycle, ...(share ? { share } : {}) }, null, 2));
      return health.running ? EXIT_OK : EXIT_FAILURE;
    }
    if (!health.running) {
      say(`memtrace worker: not running (data dir ${dataDir}); start it with 'memtrace worker start'`);
      for (const line of describeLifecycle(lifecycle)) say(line);
      return EXIT_FAILURE;
    }
    say(`memtrace worker: running, pid ${health.pid}, port ${health.port ?? '(starting)'}, data dir ${dataDir}`);
    for (const line of describeLifecycle(lifecycle)) say(line);
    say(`  status       ${health.status}${health.degraded && health.degraded.length > 0 ? ` — ${describeDegraded(health.degraded)}` : ''}`);
    if (full) {
      if (full.observing === false && typeof full.note === 'string') say(`  observer     ${full.note}`);
      else for (const line of describeObserver(observerHealth, spend)) say(line);
      if (unseen.length > 0) say(`  observer     ${unseenLine(unseen)}`);
      say(`  queue        ${String(full.queue_depth)} message(s), ${String(full.in_flight)} call(s) in flight`);
      const hooks = full.hooks as Record<string, number> | undefined;
      if (hooks)
        say(
          `  hook calls   ${hooks.accepted} accepted, ${hooks.rejected} rejected, ${hooks.failed} failed, ${hooks.shortened} shortened, ${hooks.replayed_from_spool} replayed from the spool${
            (hooks.spooled_busy ?? 0) > 0 ? ` (${hooks.spooled_busy} kept there while another process held the store's write lock)` : ''
          }`,
        );
      const store = full.store as StoreStatus | undefined;
      if (store) for (const line of describeStore(store)) say(line);
    }
    if (share) say(`  sharing      ${share.status === 'ok' ? '' : `${share.status.toUpperCase()}: `}${share.line}`);
    return EXIT_OK;
  }
  const { values } = parseCommandArgs(
    args,
    action === 'start' ? { port: { type: 'string' }, 'wait-ms': { type: 'string' } } : { 'wait-ms': { type: 'string' } },
  );
  const waitMs = parseIntegerFlag('wait-ms', values['wait-ms'] as string | undefined, { min: 100, max: 600_000 }) ?? 15_000;
  const running = runningWorker(dataDir);
  if (action === 'start') {
    // The newest install that ran here serves (an older command never starts an older worker).
    const install = installToStart(dataDir, MEMTRACE_BIN);
    if (running && !isNewerVersion(install.version, running.version)) {
      say(`memtrace worker: already running on ${dataDir} (pid ${running.pid}${running.port ? `, port ${running.port}` : ''}); nothing started`);
      return EXIT_OK;
    }
    if (running) say(`memtrace worker: ${running.version} runs; starting ${install.version}, which takes over once it has finished what it holds`);
    else if (install.bin !== path.dirname(MEMTRACE_BIN)) say(`memtrace worker: starting memtrace ${install.version} (${install.bin}), the newest installed`);
    const port = parseIntegerFlag('port', values.port as string | undefined, { min: 0, max: 65535 });
    // Here, in the foreground: a skipped driver build is completed with its progress line, or its fix said.
    if (install.bin === path.dirname(MEMTRACE_BIN)) sqliteDriver();
    // Asked for by the user: counted in the hooks' schedule, never held back by it.
    try {
      claimStartAttempt(dataDir, Date.now(), { force: true });
    } catch {
      /* a data dir that cannot be written: the worker says so itself */
    }
    const pid = spawnWorkerDetached(path.join(install.bin, 'memtrace.cjs'), dataDir, port === undefined ? io.env : { ...io.env, MEMTRACE_PORT: String(port) });
    const started = await waitUntil(waitMs, () => {
      const info = runningWorker(dataDir);
      return info?.port && info.version === install.version ? info : null;
    });
    if (!started) {
      io.stderr.write(
        `memtrace worker: did not start within ${waitMs} ms (pid ${pid ?? '?'}); see ${path.join(dataDir, 'logs', 'worker.out')}:\n${tail(path.join(dataDir, 'logs', 'worker.out'), 5)}\n`,
      );
      return EXIT_FAILURE;
    }
    say(`memtrace worker: started, pid ${started.pid}, listening on http://127.0.0.1:${started.port} (log ${path.join(dataDir, 'logs', 'worker.log')})`);
    return EXIT_OK;
  }
  if (!running) {
    say(`memtrace worker: not running on ${dataDir}; nothing to stop`);
    return EXIT_OK;
  }
  try {
    process.kill(running.pid, 'SIGTERM');
  } catch (error) {
    io.stderr.write(`memtrace worker: could not signal pid ${running.pid}: ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`);
    return EXIT_FAILURE;
  }
  const stopped = await waitUntil(waitMs, () => (runningWorker(dataDir) === null ? true : null));
  if (!stopped) {
    io.stderr.write(
      `memtrace worker: pid ${running.pid} is still running after ${waitMs} ms; it may be draining — try again, or kill it (nothing accepted is lost)\n`,
    );
    return EXIT_FAILURE;
  }
  say(`memtrace worker: stopped (pid ${running.pid})`);
  return EXIT_OK;
}

/** How sharing stands in one line (null when nothing is shared or the store cannot be read). */
function shareQuietly(dataDir: string, dbFile: string): (ShareStatus & { projects: number }) | null {
  try {
    const states = readShareStatus(dataDir, dbFile);
    return states.length === 0 ? null : { ...sharingStatus(states, Date.now()), projects: states.length };
  } catch {
    return null;
  }
}

/** The ledger, when the store can be read; `worker status` still answers without it. */
function readSpendQuietly(dbFile: string) {
  try {
    return readSpend(dbFile);
  } catch {
    return null;
  }
}

async function waitUntil<T>(ms: number, probe: () => T | null): Promise<T | null> {
  for (let waited = 0; waited <= ms; waited += POLL_MS) {
    const value = probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return null;
}

function tail(file: string, lines: number): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

interface StoreStatus {
  bytes: number;
  used_bytes: number;
  budget_bytes: number;
  over_budget: boolean;
  auto_vacuum: string;
  raw_retention_days: number;
  last_retention: null | { at: string; removed: Record<string, number>; removed_for_budget: number; bytes_before: number; bytes_after: number };
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** The store's lines of `worker status`: size against the budget, and what retention last removed. */
export function describeStore(store: StoreStatus): string[] {
  const lines = [
    `  store        ${mb(store.bytes)} of ${mb(store.budget_bytes)} (MEMTRACE_MAX_DB_MB)${store.over_budget ? ' — OVER BUDGET: no raw data left to prune; observations are kept' : ''}${store.auto_vacuum === 'incremental' ? '' : ', freed space stays in the file (no incremental vacuum)'}`,
  ];
  const last = store.last_retention;
  if (last === null) {
    lines.push(`  retention    raw data kept ${store.raw_retention_days} day(s) after processing; no pass yet`);
  } else {
    const r = last.removed;
    const parts = [`${r.tool_events} tool event(s)`, `${r.prompts} prompt(s)`, `${r.session_files} written-file record(s)`, `${r.spool_files} spool file(s)`];
    if (r.unprocessed_dropped) parts.push(`${r.unprocessed_dropped} unobserved message(s) (over budget)`);
    lines.push(
      `  retention    last pass ${last.at}: removed ${parts.join(', ')}; ${mb(Math.max(0, last.bytes_before - last.bytes_after))} returned (raw data kept ${store.raw_retention_days} day(s) after processing)`,
    );
  }
  return lines;
}
