/**
 * The observer loop's CPU per hook event as the sessions with queued work grow (issue 36): each
 * event queued wakes the loop for its session. Two states the other sessions can be in: held by
 * their provider's gate (rate limited, overloaded, logged out: every session it observes waits for
 * one probe call), and waiting for their open batch to close. Each session's provider is looked up
 * as the worker does (its session row read from a real store). The loop runs in this process with
 * a hand-held timer; the figure is this process's CPU over 2,000 wakes, less the same number of
 * idle event-loop turns, ÷ 2,000.
 */
import path from 'node:path';
import { ProviderError } from '../src/providers/types.js';
import { openStore, type Store } from '../src/store/index.js';
import { createObserverLoop, DEFAULT_LOOP_CONFIG } from '../src/worker/observer-loop.js';
import { DEFAULT_BATCH_LIMITS } from '../src/worker/batch-policy.js';
import { storeLoopQueue } from '../src/worker/store-loop-queue.js';
import { HAND_PROVIDER, handLoopDeps, handQueue, queuedHead } from '../test/support/hand-observer-loop.js';
import { makeTempDir } from '../test/support/temp-dir.js';

export const name = 'loop-wake';

const SIZES = [1, 50, 500, 5_000];
const WAKES = 2_000;
/** The backlog case: this many sessions, with these many messages queued for each. */
const BACKLOG_SESSIONS = 1_000;
const BACKLOG_PER_SESSION = [10, 100];

type State = 'held_by_provider' | 'waiting_for_batch';

export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-loop-wake-');
  const file = path.join(temp.dir, 'memtrace.db');
  const store = openStore(file);
  try {
    const sessions = Array.from({ length: Math.max(...SIZES) }, (_, i) => `bench-session-${i}`);
    store.db.transaction(() => {
      for (const s of sessions) store.sessions.init({ sessionId: s, project: 'bench', platform: 'claude-code', cwd: '/bench', nowMs: 1 });
    })();
    const figures: Record<string, Record<string, number>> = {};
    for (const state of ['held_by_provider', 'waiting_for_batch'] as const) {
      figures[state] = {};
      for (const n of SIZES) figures[state][`sessions_${n}`] = await cpuPerWake(store, sessions.slice(0, n), state);
    }
    const quiet: Record<string, number> = {};
    const written: Record<string, number> = {};
    for (const n of SIZES) {
      quiet[`sessions_${n}`] = await rescanPassMs(store, file, sessions.slice(0, n), false);
      written[`sessions_${n}`] = await rescanPassMs(store, file, sessions.slice(0, n), true);
    }
    // A heavy user's backlog: an observer logged out for weeks, or a year of transcripts mined.
    const backlog: Record<string, number> = {};
    for (const perSession of BACKLOG_PER_SESSION)
      backlog[`queued_${perSession * BACKLOG_SESSIONS}`] = await rescanPassMs(store, file, sessions.slice(0, BACKLOG_SESSIONS), true, perSession);
    const rescan = { nothing_written_elsewhere: quiet, after_another_process_wrote: written, after_another_process_wrote_with_backlog: backlog };
    return { wakes: WAKES, cpu_ms_per_wake: figures, rescan_pass_cpu_ms: rescan };
  } finally {
    store.close();
    temp.cleanup();
  }
}

async function cpuPerWake(store: Store, sessions: string[], state: State): Promise<number> {
  const nowMs = Date.now();
  const loop = createObserverLoop(
    { ...DEFAULT_LOOP_CONFIG, concurrency: 1 },
    handLoopDeps(handQueue(sessions, state === 'held_by_provider' ? {} : { claimBatch: () => ({ waitUntilMs: nowMs + 3_600_000, heads: [] }) }), {
      runTurn: () => Promise.reject(new ProviderError('overloaded', 'overloaded', { status: 529, retryAfterMs: 3_600_000 })),
      // As the worker's: the session's host, read from its row, picks its observer.
      providerFor: (sessionId) => (store.sessions.get(sessionId) ? HAND_PROVIDER : null),
      clock: { now: () => nowMs },
    }),
  );
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const wakes = async (count: number) => {
    for (let i = 0; i < count; i++) {
      loop.wake(sessions[i % sessions.length], queuedHead(i));
      await turn();
      await turn();
    }
  };
  loop.wake();
  for (let i = 0; i < 50; i++) await turn();
  await wakes(500);
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const a = cpuMs();
  await wakes(WAKES);
  const b = cpuMs();
  for (let i = 0; i < WAKES; i++) {
    await turn();
    await turn();
  }
  const c = cpuMs();
  await loop.stop(0);
  return Math.round((Math.max(0, b - a - (c - b)) / WAKES) * 10_000) / 10_000;
}

/**
 * The pass the worker's 30 s tick runs (`rescan`), with every session's one queued event waiting
 * for its batch to close, on the real store's queue: CPU of one pass, which holds the event loop
 * (a hook waits for it); median of 5. `elsewhere`: another connection commits before each
 * (`memtrace mine` or `import` in a process of their own), so the loop reads the store again.
 * `perSession`: messages queued for each session (a backlog).
 */
async function rescanPassMs(store: Store, file: string, sessions: string[], elsewhere: boolean, perSession = 1): Promise<number> {
  const nowMs = Date.now();
  store.db.exec('DELETE FROM queue');
  store.db.transaction(() => {
    for (let k = 0; k < perSession; k++)
      for (const [i, sessionId] of sessions.entries())
        store.queue.enqueue({
          sessionId,
          kind: 'observation',
          toolUseId: `rescan-${nowMs}-${elsewhere}-${i}-${k}`,
          payload: { kind: 'post_tool_use', session_id: sessionId, at: nowMs, tool_name: 'Read', tool_input: {}, tool_response: 'ok' },
          observerBytes: 100,
          nowMs,
        });
  })();
  const other = elsewhere ? openStore(file) : null;
  const loop = createObserverLoop(
    DEFAULT_LOOP_CONFIG,
    // A backlog's batches stay open (no closing by size): what is measured is the look, not calls.
    handLoopDeps(storeLoopQueue(store, perSession > 1 ? { ...DEFAULT_BATCH_LIMITS, maxEvents: 10_000, maxTokens: 1e9 } : DEFAULT_BATCH_LIMITS), {
      runTurn: () => Promise.reject(new Error('no batch closes in this bench')),
      providerFor: (sessionId) => (store.sessions.get(sessionId) ? HAND_PROVIDER : null),
      clock: { now: () => nowMs },
    }),
  );
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  loop.rescan();
  await turn();
  const passes: number[] = [];
  for (let i = 0; i < 5; i++) {
    other?.probeWrite(nowMs + i);
    const before = process.cpuUsage();
    loop.rescan();
    await turn();
    const used = process.cpuUsage(before);
    passes.push((used.user + used.system) / 1000);
  }
  await loop.stop(0);
  other?.close();
  passes.sort((x, y) => x - y);
  return Math.round((passes[2] ?? 0) * 100) / 100;
}
