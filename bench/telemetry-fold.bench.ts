import path from 'node:path';
import { silentLogger } from '../src/log.js';
import { openStore } from '../src/store/index.js';
import { finalizeTurnRollup, foldTurn, newTurnAccumulator, scrubProperties } from '../src/telemetry/index.js';
import { createTelemetry } from '../src/telemetry/runtime.js';
import type { TurnRecord } from '../src/observer/turn-record.js';
import { makeTempDir } from '../test/support/temp-dir.js';

export const name = 'telemetry-fold';

function turnAt(i: number): TurnRecord {
  return {
    sessionId: 's',
    messageIds: [i],
    events: 1,
    outcome: i % 17 === 0 ? 'error' : 'ok',
    parse: i % 17 === 0 ? null : i % 5 === 0 ? 'dropped' : 'parsed',
    outputClass: i % 17 === 0 ? null : i % 5 === 0 ? 'prose' : 'xml',
    abortReason: i % 17 === 0 ? 'rate_limit' : null,
    observationsByType: i % 5 === 0 ? {} : { bugfix: 1, discovery: i % 3 },
    observationsCreated: i % 5 === 0 ? 0 : 1 + (i % 3),
    summaryCreated: false,
    claimsRejected: 0,
    claimsUnverifiable: 0,
    fileClaimsRemoved: 0,
    tokens: i % 11 === 0 ? null : { input: 1500, output: 200 },
    costUsd: i % 11 === 0 ? null : 0.001,
    durationMs: 800 + (i % 400),
    provider: 'anthropic',
    model: i % 7 === 0 ? 'claude-sonnet-4-6' : 'claude-haiku-4-5',
  };
}

/** The naive design: keep every turn record, aggregate at flush. */
function naiveAggregate(turns: TurnRecord[]): Record<string, unknown> {
  const acc = newTurnAccumulator(0, 'anthropic');
  for (const t of turns) foldTurn(acc, t);
  return finalizeTurnRollup(acc, { reason: 'session_end', windowSeq: 0 });
}

const heapUsed = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
};

export async function run(): Promise<Record<string, unknown>> {
  const n = 10_000;
  const turns = Array.from({ length: n }, (_, i) => turnAt(i));

  // Ours, pure: fold into a constant-size accumulator, scrub once at flush.
  const timeOurs = () => {
    const started = performance.now();
    const acc = newTurnAccumulator(0, 'anthropic');
    for (let i = 0; i < n; i += 1) foldTurn(acc, turns[i]!);
    scrubProperties('observer_turn_rollup', finalizeTurnRollup(acc, { reason: 'session_end', windowSeq: 0 }));
    return { us: ((performance.now() - started) * 1000) / n, acc };
  };
  const timeNaive = () => {
    const started = performance.now();
    const kept: TurnRecord[] = [];
    for (let i = 0; i < n; i += 1) kept.push({ ...turns[i]!, observationsByType: { ...turns[i]!.observationsByType } });
    scrubProperties('observer_turn_rollup', naiveAggregate(kept));
    return { us: ((performance.now() - started) * 1000) / n, kept };
  };
  for (let i = 0; i < 5; i += 1) {
    timeOurs();
    timeNaive();
  }
  const ours = Array.from({ length: 7 }, timeOurs)
    .map((r) => r.us)
    .sort((a, b) => a - b)[3]!;
  const naive = Array.from({ length: 7 }, timeNaive)
    .map((r) => r.us)
    .sort((a, b) => a - b)[3]!;

  const before = heapUsed();
  const held = timeNaive().kept;
  const naiveBytes = heapUsed() - before;
  const accBytes = Buffer.byteLength(JSON.stringify(timeOurs().acc));
  void held.length;

  // The durable path as the worker runs it: one SQLite row read + write per turn inside a transaction.
  const temp = makeTempDir('memtrace-bench-');
  const store = openStore(path.join(temp.dir, 'memtrace.db'));
  const telemetry = createTelemetry(
    { dataDir: temp.dir, env: {}, appVersion: '0.1.0', provider: 'anthropic' },
    { db: store.db, clock: { now: () => 0 }, log: silentLogger, stderr: { write: () => true }, sink: null },
  );
  const sessions = 10;
  const turnsDurable = 5_000;
  const durableStarted = performance.now();
  const fold = store.db.transaction((t: TurnRecord, nowMs: number) => telemetry.recordTurn(t, nowMs));
  for (let i = 0; i < turnsDurable; i += 1) fold({ ...turns[i]!, sessionId: `s${i % sessions}` }, i * 100);
  const durableUs = ((performance.now() - durableStarted) * 1000) / turnsDurable;
  for (let s = 0; s < sessions; s += 1) telemetry.sessionEnded(`s${s}`, turnsDurable * 100);
  const events = telemetry.preview(10_000).filter((e) => e.event === 'observer_turn_rollup');
  const counted = events.reduce((sum, e) => sum + Number(e.properties.count), 0);
  store.close();
  temp.cleanup();

  return {
    turns: n,
    fold_plus_scrub_us_per_turn: +ours.toFixed(3),
    naive_keep_all_us_per_turn: +naive.toFixed(3),
    ratio_naive_vs_ours: +(naive / ours).toFixed(1),
    memory_per_session_bytes: {
      ours_accumulator_json: accBytes,
      naive_retained_heap: naiveBytes,
      heap_measured_with_gc: typeof (globalThis as { gc?: unknown }).gc === 'function',
    },
    durable_fold_in_sqlite_transaction_us_per_turn: +durableUs.toFixed(1),
    event_volume: {
      turns: turnsDurable,
      sessions,
      rollup_events: events.length,
      turns_counted: counted,
      events_per_1000_turns: +((events.length / turnsDurable) * 1000).toFixed(2),
      reduction_vs_per_turn_pct: +(100 * (1 - events.length / turnsDurable)).toFixed(2),
    },
    targets: { us_per_turn: 2, bytes_per_session: 4096 },
  };
}
