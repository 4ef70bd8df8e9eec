import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCompactionConfig, startCompaction } from '../../src/compaction/index.js';
import { repairCounters } from '../../src/cli/commands/repair-telemetry.js';
import { silentLogger } from '../../src/log.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { scrubProperties } from '../../src/telemetry/index.js';
import { createTelemetry } from '../../src/telemetry/runtime.js';
import { fakeClock, recordingTimers, seedObservations, SMALL_CONFIG } from '../support/compaction-fixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { makeTempDir } from '../support/temp-dir.js';

const WINDOW = 300_000;

describe('compaction_rollup', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let llm: FakeLlm;
  beforeEach(async () => {
    temp = makeTempDir();
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    llm = await startFakeLlm('anthropic', { kind: 'text', text: 'Short summary of the retry path.' });
  });
  afterEach(async () => {
    store.close();
    await llm.close();
    temp.cleanup();
  });

  it('counts a pass by kind and level and by skip reason, scrubbed with nothing dropped', async () => {
    const clock = fakeClock();
    const telemetry = createTelemetry(
      { dataDir: temp.dir, env: { MEMTRACE_TELEMETRY: '1' }, appVersion: '0.2.0', provider: 'anthropic' },
      { db: store.db, clock, log: silentLogger, stderr: { write: () => true }, sink: null },
    );
    telemetry.start(clock.now());
    seedObservations(store, 'app', 40);
    seedObservations(store, 'other', 40);
    llm.push({ kind: 'text', text: 'Short summary of the retry path.' }, { kind: 'text', text: 'Another short summary.' });
    // After two summaries the provider fails: the pass stops with one overloaded skip.
    llm.setFallback({ kind: 'status', status: 529, errorType: 'overloaded_error' });
    const compaction = startCompaction(SMALL_CONFIG, {
      db: store.db,
      provider: createAnthropicProvider({ apiKey: 'k', baseUrl: llm.url }),
      clock,
      timers: recordingTimers(),
      log: silentLogger,
      recordCounters: telemetry.recordCounters,
    });
    await compaction.runPass();
    await compaction.stop();
    clock.advance(WINDOW + 1);
    telemetry.tick(clock.now());
    const sent = telemetry.preview(100).filter((e) => e.event === 'compaction_rollup');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.properties).toMatchObject({ origin: 'background', passes: 1, leaves_normal: 2, skipped_overloaded: 1 });
    expect(scrubProperties('compaction_rollup', sent[0]!.properties)!.dropped).toEqual([]);
  });

  it('scrubs repair counters to known fields only', () => {
    const counters = repairCounters({
      found: 3,
      repaired: 1,
      failed: 1,
      skipped: 1,
      entries: [
        {
          id: 'a',
          kind: 'leaf',
          depth: 0,
          tokens: 1,
          scope: null,
          model: null,
          level: null,
          reasons: ['truncated_tail'],
          outcome: { status: 'failed', reason: 'marker' },
        },
        {
          id: 'b',
          kind: 'condensed',
          depth: 1,
          tokens: 1,
          scope: null,
          model: null,
          level: null,
          reasons: ['truncated_tail'],
          outcome: { status: 'skipped', reason: 'source_unrepaired' },
        },
      ],
    });
    expect(counters).toEqual({ passes: 1, repaired: 1, repair_failed: 1, skipped_marker: 1, skipped_source_unrepaired: 1 });
    expect(scrubProperties('compaction_rollup', { origin: 'repair_lcm', ...counters, window_start_ts: 0 })!.dropped).toEqual([]);
  });
});

describe('compaction config', () => {
  it('reads the budget and kept-recent count, and names a bad variable while keeping the default', () => {
    expect(loadCompactionConfig({ MEMTRACE_COMPACTION_BUDGET_TOKENS: '50000', MEMTRACE_COMPACTION_KEEP_RECENT: '20' }).config).toMatchObject({
      budgetTokens: 50_000,
      keepRecentObservations: 20,
    });
    expect(loadCompactionConfig({ MEMTRACE_COMPACTION_BUDGET_TOKENS: '0' }).config.budgetTokens).toBe(0);
    const bad = loadCompactionConfig({ MEMTRACE_COMPACTION_BUDGET_TOKENS: 'lots', MEMTRACE_COMPACTION_KEEP_RECENT: '0' });
    expect(bad.config).toMatchObject({ budgetTokens: 20_000, keepRecentObservations: 50 });
    expect(bad.errors.join('\n')).toMatch(/MEMTRACE_COMPACTION_BUDGET_TOKENS=lots[\s\S]*MEMTRACE_COMPACTION_KEEP_RECENT=0/);
    expect(loadCompactionConfig({ MEMTRACE_COMPACTION_BUDGET_TOKENS: '500' }).errors[0]).toContain('below 1000');
  });
});
