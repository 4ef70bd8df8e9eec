import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { silentLogger } from '../../src/log.js';
import { accessIncrements, createAccessRecorder } from '../../src/memory/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTelemetry } from '../../src/telemetry/runtime.js';
import { eventSpec, scrubProperties, searchLatencyBucket } from '../../src/telemetry/index.js';
import { captureIO } from '../support/cli-io.js';
import { seedShop } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const WINDOW = 300_000;
const T0 = 1_700_000_100_000 - (1_700_000_100_000 % WINDOW);

describe('memory_access_rollup counters', () => {
  it('put each search in exactly one latency bucket', () => {
    expect([0, 5, 5.4, 6, 10, 25, 26, 100, 250, 1000, 1001].map(searchLatencyBucket)).toEqual([
      'search_ms_le_5',
      'search_ms_le_5',
      'search_ms_le_10',
      'search_ms_le_10',
      'search_ms_le_10',
      'search_ms_le_25',
      'search_ms_le_50',
      'search_ms_le_100',
      'search_ms_le_250',
      'search_ms_le_1000',
      'search_ms_gt_1000',
    ]);
  });

  it('count a search, an empty one, fetches, timelines, exports, imports and forgets, and nothing of what was asked', () => {
    expect(accessIncrements({ kind: 'search', durationMs: 7.6, results: 3 })).toEqual({
      searches: 1,
      searches_empty: 0,
      search_total_ms: 8,
      search_ms_le_10: 1,
      results_returned: 3,
    });
    expect(accessIncrements({ kind: 'search', durationMs: 1, results: 0 })).toMatchObject({ searches_empty: 1 });
    expect(accessIncrements({ kind: 'fetch', observations: 2 })).toEqual({ observations_fetched: 2 });
    expect(accessIncrements({ kind: 'timeline' })).toEqual({ timelines: 1 });
    expect(accessIncrements({ kind: 'export', items: 9 })).toEqual({ exports: 1, items_exported: 9 });
    expect(accessIncrements({ kind: 'import', imported: 4, invalid: 1 })).toEqual({ imports: 1, items_imported: 4, import_lines_invalid: 1 });
    expect(accessIncrements({ kind: 'forget', items: 0 })).toEqual({});
    const fields = new Set(eventSpec('memory_access_rollup')!.fields.map((f) => f.key));
    for (const access of [
      { kind: 'search', durationMs: 2000, results: 1 },
      { kind: 'forget', items: 3 },
    ] as const) {
      for (const key of Object.keys(accessIncrements(access))) expect(fields.has(key), key).toBe(true);
    }
  });

  it('scrub an unknown face away and keep the counts', () => {
    const scrubbed = scrubProperties('memory_access_rollup', { via: 'browser-extension', searches: 2, query: 'secret words', window_start_ts: T0 });
    expect(scrubbed?.properties).toEqual({ searches: 2, window_start_ts: T0 });
  });
});

describe('memory access from a command, sent by the worker', () => {
  const temp = makeTempDir('memtrace-memory-access-');
  let store: Store | undefined;
  afterEach(() => {
    store?.close();
    store = undefined;
  });

  it('folds a CLI search into the durable window; the worker’s telemetry closes it into one scrubbed event', async () => {
    const dataDir = path.join(temp.dir, 'on');
    store = openStore(path.join(dataDir, 'memtrace.db'));
    seedShop(store);
    const env = { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '1', HOME: temp.dir };
    for (const query of ['checkout discount', 'zebra']) {
      const c = captureIO({ env });
      expect(await main(['search', query], c.io)).toBe(0);
    }
    const open = store.db.prepare("SELECT key, state FROM telemetry_accumulators WHERE event = 'memory_access_rollup'").all() as Array<{
      key: string;
      state: string;
    }>;
    expect(open.map((r) => r.key)).toEqual(['window:memory_access_rollup:via=cli']);
    expect(JSON.parse(open[0]!.state).counters).toMatchObject({ searches: 2, searches_empty: 1 });

    // The worker's tick, a window later, sends it.
    const now = JSON.parse(open[0]!.state).windowStartMs + WINDOW;
    const worker = createTelemetry(
      { dataDir, env, appVersion: '0.2.0', provider: 'none' },
      { db: store.db, clock: { now: () => now }, log: silentLogger, stderr: { write: () => true }, sink: null },
    );
    worker.tick(now);
    const sent = worker.preview(50).filter((e) => e.event === 'memory_access_rollup');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.properties).toMatchObject({ via: 'cli', searches: 2, searches_empty: 1 });
    expect(JSON.stringify(sent[0])).not.toMatch(/checkout|zebra|discount/);
  });

  it('records nothing when telemetry is off', () => {
    const dataDir = path.join(temp.dir, 'off');
    store = openStore(path.join(dataDir, 'memtrace.db'));
    const recorder = createAccessRecorder({ dataDir, env: { DO_NOT_TRACK: '1' } }, { db: store.db });
    recorder.record('mcp', { kind: 'search', durationMs: 3, results: 1 }, T0);
    expect(store.db.prepare('SELECT count(*) AS n FROM telemetry_accumulators').get()).toEqual({ n: 0 });
  });
});
