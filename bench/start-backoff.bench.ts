/**
 * `npm run bench -- start-backoff`: how many times hooks start a worker that cannot start.
 *
 * A data dir whose store is damaged (its header overwritten), and START_FIRINGS hook firings
 * (default 20) of the real forwarder as Claude Code runs it (native build, then perl, then the
 * detached Node hook), START_SPACING_MS apart (default 0: back to back; 30000 is a busy session
 * of ten minutes). Counted: worker starts (each logs `worker starting, version V, pid P`), the
 * events spooled, and, for the same firing times, the starts the shared schedule allows (15 s,
 * then doubling to 30 min) and the starts without it (one per firing that finds no worker: every
 * SessionStart before; every hook now, were it not for the schedule).
 */
import fs from 'node:fs';
import path from 'node:path';
import { readStartState } from '../src/data-dir/index.js';
import { startAttemptDue, withAttempt, type StartState } from '../src/data-dir/start-state.js';
import { fireHook, hookPayload } from '../test/support/forwarder-session.js';
import { buildNativeForwarderInto } from '../test/support/native-forwarder.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { waitFor } from '../test/support/wait-for.js';

export const name = 'start-backoff';

const FIRINGS = Number(process.env.START_FIRINGS ?? 20);
const SPACING_MS = Number(process.env.START_SPACING_MS ?? 0);
const ROOT = path.resolve(import.meta.dirname, '..');

export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-start-backoff-');
  try {
    const dataDir = path.join(temp.dir, 'data');
    const cwd = path.join(temp.dir, 'work');
    fs.mkdirSync(cwd);
    fs.mkdirSync(dataDir, { mode: 0o700 });
    buildNativeForwarderInto(dataDir);
    fs.writeFileSync(path.join(dataDir, 'memtrace.db'), Buffer.alloc(64 * 1024, 7), { mode: 0o600 });
    const env = { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' };
    const bin = path.join(ROOT, 'bin');
    const session = 'eeeeeeee-0000-4000-8000-000000000001';
    const firedAt: number[] = [];
    const started = Date.now();
    for (let i = 0; i < FIRINGS; i += 1) {
      if (SPACING_MS > 0) await new Promise((r) => setTimeout(r, Math.max(0, started + i * SPACING_MS - Date.now())));
      firedAt.push(Date.now());
      const event = i === 0 ? 'session-start' : 'post-tool-use';
      await fireHook(bin, event, hookPayload(i === 0 ? 'session-start.json' : 'post-tool-use-read.json', session, cwd, `toolu_backoff_${i}`), { env, cwd });
    }
    const spooled = () => fs.readdirSync(path.join(dataDir, 'spool/events')).filter((n) => n.endsWith('.json')).length;
    await waitFor(() => spooled() === FIRINGS, 60_000).catch(() => undefined);
    await waitFor(() => readStartState(dataDir)?.last_error != null, 30_000).catch(() => undefined);
    const log = fs.readFileSync(path.join(dataDir, 'logs/worker.log'), 'utf8');
    const state = readStartState(dataDir);
    return {
      load_average: fs.readFileSync('/proc/loadavg', 'utf8').trim(),
      firings: FIRINGS,
      spacing_ms: SPACING_MS,
      span_s: Math.round((firedAt.at(-1)! - firedAt[0]!) / 100) / 10,
      worker_starts: (log.match(/"msg":"worker starting, version /g) ?? []).length,
      starts_the_schedule_allows_for_these_times: scheduled(firedAt),
      starts_without_a_schedule: FIRINGS,
      events_spooled: spooled(),
      reason: state?.last_error?.reason ?? null,
      next_attempt_in_s: state?.next_attempt_at ? Math.round((Date.parse(state.next_attempt_at) - Date.now()) / 1000) : null,
    };
  } finally {
    temp.cleanup();
  }
}

/** The attempts the shared schedule allows at these firing times (pure replay of start-state.ts). */
function scheduled(times: readonly number[]): number {
  let state: StartState | null = null;
  let attempts = 0;
  for (const t of times)
    if (startAttemptDue(state, t)) {
      state = withAttempt(state, t);
      attempts += 1;
    }
  return attempts;
}
