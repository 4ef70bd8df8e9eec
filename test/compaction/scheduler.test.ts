import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCompaction, type CompactionConfig, type CompactionHandle } from '../../src/compaction/index.js';
import { buildContext, createContextQuery, estimateTokens } from '../../src/context/index.js';
import { createMemoryLogger } from '../../src/log.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { fakeClock, longerThanPrompt, MINUTE, promptOf, recordingTimers, seedObservations, SMALL_CONFIG, T0 } from '../support/compaction-fixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const SHORT = { kind: 'text' as const, text: 'Retry path: backs off, re-reads the queue row, then calls the provider again.' };

describe('background compaction', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let file: string;
  let store: Store;
  let llm: FakeLlm;
  let clock: ReturnType<typeof fakeClock>;
  let counters: Array<{ event: string; dims: Record<string, string>; increments: Record<string, number> }>;
  let handle: CompactionHandle | null;

  beforeEach(async () => {
    temp = makeTempDir();
    file = path.join(temp.dir, 'memtrace.db');
    store = openStore(file);
    llm = await startFakeLlm('anthropic', SHORT);
    clock = fakeClock(T0 + 100 * MINUTE);
    counters = [];
    handle = null;
  });
  afterEach(async () => {
    await handle?.stop();
    store.close();
    await llm.close();
    temp.cleanup();
  });

  function start(config: CompactionConfig = SMALL_CONFIG, options: { timeoutMs?: number } = {}) {
    const provider = createAnthropicProvider({ apiKey: 'k', baseUrl: llm.url, timeoutMs: options.timeoutMs ?? 5_000 });
    handle = startCompaction(config, {
      db: store.db,
      provider,
      clock,
      timers: recordingTimers(),
      log: createMemoryLogger(),
      recordCounters: (event, dims, increments) => counters.push({ event, dims: { ...dims }, increments: { ...increments } }),
    });
    return handle;
  }
  const rows = () => store.db.prepare('SELECT * FROM memory_summaries ORDER BY id').all() as Array<Record<string, any>>;
  const state = () => store.db.prepare('SELECT * FROM compaction_state').get() as Record<string, any> | undefined;
  const inject = (budgetTokens: number) => buildContext(createContextQuery(store.db), { project: 'app', budgetTokens, nowMs: clock.now() });

  it('condenses the oldest observations into leaves and keeps the newest raw', async () => {
    const ids = seedObservations(store, 'app', 30);
    const report = await start().runPass();
    const leaves = rows().filter((r) => r.kind === 'leaf');
    expect(leaves.length).toBeGreaterThan(0);
    expect(report.steps.some((s) => s.kind === 'created')).toBe(true);
    for (const leaf of leaves) {
      expect(leaf.level).toBe('normal');
      expect(leaf.token_count).toBeLessThan(leaf.source_token_count);
      expect(leaf.model).toBe('claude-haiku-4-5');
      const sources = store.db.prepare('SELECT observation_id FROM summary_sources WHERE summary_id = ? ORDER BY ordinal').all(leaf.id) as Array<{
        observation_id: number;
      }>;
      expect(sources.map((s) => s.observation_id)).toEqual(ids.filter((id) => id >= leaf.first_observation_id && id <= leaf.last_observation_id));
    }
    const covered = Math.max(...leaves.map((l) => l.last_observation_id));
    expect(ids.filter((id) => id > covered).length).toBeGreaterThanOrEqual(SMALL_CONFIG.keepRecentObservations);
    // Each leaf's input was rendered observations, never a previous summary.
    expect(promptOf(llm.requests[0]!.body)).toContain('Finding 0 about the retry path');
  });

  it('condenses a full run of same-depth leaves into a depth-1 summary with lineage by direction', async () => {
    seedObservations(store, 'app', 60);
    await start().runPass();
    const condensed = rows().filter((r) => r.kind === 'condensed');
    expect(condensed.length).toBeGreaterThan(0);
    const first = condensed[0]!;
    expect(first.depth).toBe(1);
    const sources = store.db.prepare('SELECT source_summary_id FROM summary_sources WHERE summary_id = ? ORDER BY ordinal').all(first.id) as Array<{
      source_summary_id: number;
    }>;
    expect(sources).toHaveLength(SMALL_CONFIG.fanIn);
    for (const s of sources) {
      const source = store.db.prepare('SELECT depth, condensed_into FROM memory_summaries WHERE id = ?').get(s.source_summary_id) as {
        depth: number;
        condensed_into: number;
      };
      expect(source).toEqual({ depth: 0, condensed_into: first.id });
    }
    expect(counters.at(-1)).toMatchObject({ event: 'compaction_rollup', dims: { origin: 'background' } });
    expect(counters.at(-1)!.increments.condensed_normal).toBeGreaterThan(0);
    expect(counters.at(-1)!.increments.passes).toBe(1);
  });

  it('escalates to aggressive when the normal answer did not shrink', async () => {
    seedObservations(store, 'app', 12);
    llm.push({ kind: 'dynamic', respond: (body) => ({ kind: 'text', text: longerThanPrompt(body) }) });
    await start({ ...SMALL_CONFIG, maxStepsPerProject: 1 }).runPass();
    expect(rows()).toHaveLength(1);
    expect(rows()[0]!.level).toBe('aggressive');
    expect(JSON.stringify(llm.requests[1]!.body.system)).toContain('aggressive');
  });

  const failures: Array<[string, () => void, string, { timeoutMs?: number }]> = [
    ['a 500', () => llm.setFallback({ kind: 'status', status: 500 }), 'overloaded', {}],
    ['a timeout', () => llm.setFallback({ kind: 'delay', ms: 2_000, reply: SHORT }), 'transport', { timeoutMs: 100 }],
    ['an empty answer', () => llm.setFallback({ kind: 'text', text: '   ' }), 'empty', {}],
    [
      'text longer than its input at both levels',
      () => llm.setFallback({ kind: 'dynamic', respond: (body) => ({ kind: 'text', text: longerThanPrompt(body) }) }),
      'did_not_shrink',
      {},
    ],
  ];
  for (const [name, script, reason, options] of failures) {
    it(`writes nothing on ${name}, schedules a retry 5 min out (doubling) and still injects within budget`, async () => {
      seedObservations(store, 'app', 30);
      script();
      const compaction = start(SMALL_CONFIG, options);
      const first = await compaction.runPass();
      expect(rows()).toEqual([]);
      expect(first.steps).toEqual([{ kind: 'skipped', reason, nextAttemptAt: clock.now() + 5 * MINUTE }]);
      expect(state()).toMatchObject({ attempts: 1, next_attempt_at: clock.now() + 5 * MINUTE, last_failure: reason });
      expect(counters.at(-1)!.increments[`skipped_${reason}`]).toBe(1);

      const calls = llm.requests.length;
      clock.advance(4 * MINUTE);
      await compaction.runPass();
      expect(llm.requests.length).toBe(calls); // not due yet: no provider call

      clock.advance(MINUTE);
      await compaction.runPass();
      expect(state()).toMatchObject({ attempts: 2, next_attempt_at: clock.now() + 10 * MINUTE });
      expect(rows()).toEqual([]);

      for (const budget of [200, 1_000, 4_000]) {
        const injected = inject(budget);
        expect(estimateTokens(injected.markdown)).toBeLessThanOrEqual(budget);
        expect(injected.observationsInjected).toBeGreaterThan(0);
      }
    });
  }

  it('keeps the retry delay across a restart and caps it at 30 minutes', async () => {
    seedObservations(store, 'app', 30);
    llm.setFallback({ kind: 'status', status: 529, errorType: 'overloaded_error' });
    let compaction = start();
    const delays: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      await compaction.runPass();
      const next = state()!.next_attempt_at as number;
      delays.push((next - clock.now()) / MINUTE);
      clock.set(next);
    }
    expect(delays).toEqual([5, 10, 20, 30, 30]);
    await compaction.stop();
    store.close();
    store = openStore(file);
    compaction = start();
    clock.advance(-MINUTE);
    const calls = llm.requests.length;
    await compaction.runPass();
    expect(llm.requests.length).toBe(calls);
  });

  it('after an auth failure waits for the provider to recover, shown by a newer observation', async () => {
    seedObservations(store, 'app', 30);
    llm.setFallback({ kind: 'status', status: 401, errorType: 'authentication_error' });
    const compaction = start();
    await compaction.runPass();
    expect(state()).toMatchObject({ last_failure: 'auth' });
    const calls = llm.requests.length;
    clock.advance(20 * MINUTE);
    await compaction.runPass();
    expect(llm.requests.length).toBe(calls);

    llm.setFallback(SHORT);
    seedObservations(store, 'app', 1, { startMs: clock.now() });
    await compaction.runPass();
    expect(rows().length).toBeGreaterThan(0);
    expect(state()).toMatchObject({ attempts: 0, last_failure: null });
  });

  it('treats nothing left to compact as terminal until a new observation arrives', async () => {
    // Raw observations all inside the kept-recent window but over budget: nothing can be compacted.
    seedObservations(store, 'app', 5);
    const compaction = start({ ...SMALL_CONFIG, budgetTokens: 100 });
    const report = await compaction.runPass();
    expect(report.steps).toEqual([{ kind: 'idle', reason: 'nothing_to_compact' }]);
    expect(counters.at(-1)!.increments.skipped_nothing_to_compact).toBe(1);
    clock.advance(24 * 60 * MINUTE);
    expect((await compaction.runPass()).steps).toEqual([]);
    expect(llm.requests).toHaveLength(0);
    seedObservations(store, 'app', 1, { startMs: clock.now() });
    expect((await compaction.runPass()).steps).toHaveLength(1);
  });

  it('injects recent observations raw and older history as summaries, within budget', async () => {
    seedObservations(store, 'app', 60);
    await start().runPass();
    const injected = inject(2_000);
    expect(injected.markdown).toContain('## Earlier history (compacted)');
    expect(injected.markdown).toContain('Retry path: backs off');
    expect(injected.summariesInjected).toBeGreaterThan(0);
    expect(estimateTokens(injected.markdown)).toBeLessThanOrEqual(2_000);
    // Covered observations are not injected raw again.
    const covered = (store.db.prepare("SELECT max(last_observation_id) AS id FROM memory_summaries WHERE kind = 'leaf'").get() as { id: number }).id;
    expect(injected.markdown).not.toContain('Finding 0 about');
    expect(covered).toBeGreaterThan(0);
  });

  it('does nothing while compaction is off, and stop() aborts a summarizer call in flight', async () => {
    seedObservations(store, 'app', 30);
    const off = start({ ...SMALL_CONFIG, budgetTokens: 0 });
    expect((await off.runPass()).steps).toEqual([{ kind: 'idle', reason: 'disabled' }]);
    await off.stop();
    seedObservations(store, 'app', 1, { startMs: clock.now() });

    // The call would hang past the test's own time limit: stop() returning at all proves the abort.
    llm.setFallback({ kind: 'delay', ms: 600_000, reply: SHORT });
    const compaction = start();
    const pass = compaction.runPass();
    await waitFor(() => llm.requests.length > 0);
    await compaction.stop();
    await pass;
    expect(rows()).toEqual([]);
    expect(state()?.attempts ?? 0).toBe(0); // a shutdown is not a failure
  });
});
