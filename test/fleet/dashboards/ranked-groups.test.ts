import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openCollectorStore, type CollectorStore } from '../../../src/fleet/collector/index.js';
import { openTileSums, queryTilesDirect, simulateFleet, TILES, type Tile, type TileResult } from '../../../src/fleet/dashboards/index.js';
import { num, ratio, sum } from '../../../src/fleet/dashboards/tile-ir.js';
import { ROLLUP } from '../../../src/fleet/dashboards/fleet-measures.js';
import { oddEvents } from '../../support/hostile-fleet.js';
import { RANKED_TEST_TILE } from '../../support/ranked-test-tile.js';
import { makeTempDir } from '../../support/temp-dir.js';
import { compareTileResults } from '../../support/tile-compare.js';

const NOW = Date.UTC(2026, 7, 19, 12);
const RANKED = TILES.filter((t) => t.keep);
/** The events the ranked tiles read: a fleet of more installs than a ranking keeps, without the rest of the simulator's events. */
const RANKED_EVENTS = [...new Set(RANKED.flatMap((t) => t.events))];

/** Ranked tiles of their own (their own tables), cut to a few rows: two ends of 2 and the median. */
const CUT: Tile[] = [
  ...RANKED.map((t) => ({ ...t, id: `${t.id}-cut`, keep: { ends: 2 } })),
  // Weeks (integer keys), ascending, by a ratio that is NULL (first) in the weeks before the odd events, no having.
  {
    id: 'weekly-yield-cut',
    name: 'Observations per odd session, weekly, lowest first',
    description: 'A ranked tile over weeks, for the tests.',
    healthy: 'n/a',
    chart: 'ranked',
    unit: 'count',
    events: [ROLLUP],
    x: 'week',
    measures: [
      { name: 'per_session', agg: ratio(sum(num('observations_created')), sum(num('sessions'))) },
      { name: 'turns', agg: sum(num('count')) },
    ],
    order: { by: 'per_session' },
    keep: { ends: 2 },
  },
];

function expectSameAsPlainSql(kept: readonly TileResult[], db: Database.Database, tiles: readonly Tile[]): void {
  const comparison = compareTileResults(kept, queryTilesDirect(db, tiles));
  expect(comparison.shape_mismatches).toEqual([]);
  expect(comparison.max_relative_difference, comparison.examples.join('\n')).toBe(0);
  expect(comparison.identical).toBe(comparison.cells);
}

const ranked = (results: readonly TileResult[]) => results.filter((r) => r.tile.keep);

describe('ranked tiles read from the ranking kept at ingest', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  let store: CollectorStore | undefined;
  afterEach(() => {
    store?.close();
    store = undefined;
    temp?.cleanup();
    temp = undefined;
  });

  it('keep the same ends, median and counts as the plain SQL that ranks every install, batch after batch', () => {
    store = openCollectorStore(':memory:');
    const events = [...simulateFleet({ seed: 21, installs: 130, nowMs: NOW, events: RANKED_EVENTS }), ...oddEvents(1_500, 21, NOW)];
    for (let i = 0; i < events.length; i += 700) store.insert(events.slice(i, i + 700));
    const results = ranked(store.tiles.read());
    for (const r of results) {
      expect(r.rows).toHaveLength(101);
      expect(Number(r.rows[0]!.ranked_of)).toBeGreaterThan(101);
    }
    expectSameAsPlainSql(results, store.db, RANKED);
    // The rows come from the ranking, not from ranking every install's sums: a group taken out of it is out of the counts.
    store.db.exec('DELETE FROM dash_tokens_saved_ranked WHERE xk = (SELECT min(xk) FROM dash_tokens_saved_ranked)');
    const tokens = store.tiles.read().find((r) => r.tile.id === 'tokens-saved')!;
    expect(tokens.rows[0]!.ranked_of).toBe(Number(results[0]!.rows[0]!.ranked_of) - 1);
  });

  it('rank installs, weeks, ties, unknown and huge values, ascending and descending, as the plain SQL does', () => {
    store = openCollectorStore(':memory:');
    const cut = openTileSums(store.db, CUT);
    const events = [...simulateFleet({ seed: 22, installs: 25, nowMs: NOW, events: RANKED_EVENTS }), ...oddEvents(2_000, 22, NOW)];
    for (let i = 0; i < events.length; i += 400) {
      store.insert(events.slice(i, i + 400));
      cut.refresh();
    }
    const results = cut.read();
    for (const r of results) expect(r.rows).toHaveLength(5);
    const weekly = results.at(-1)!.rows;
    expect(weekly[0]!.per_session).toBeNull();
    expect(typeof weekly.at(-1)!.per_session).toBe('number');
    expectSameAsPlainSql(results, store.db, CUT);
  });

  it('count the installs above zero as they cross it, leave the ranking and come back', () => {
    store = openCollectorStore(':memory:');
    const tile: Tile = { ...RANKED_TEST_TILE, having: { nonZero: num('w') } };
    const sums = openTileSums(store.db, [tile]);
    let n = 0;
    const nextUuid = () => {
      n += 1;
      return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    };
    const event = (install: string, v: number, w: number) => ({
      uuid: nextUuid(),
      event: 'e',
      distinctId: install,
      timestamp: NOW,
      properties: { v, w },
    });
    const batches = [
      [event('a', 5, 1), event('b', -3, 1), event('c', 0, 1), event('d', 2, 0), event('e', 1, 1)],
      [event('b', 4, 0), event('a', -10, 0), event('d', 0, 1)],
      [event('c', 0, -1), event('a', 5, 0), event('e', -1, 0)],
      [event('c', 3, 1), event('e', 0, -1)],
    ];
    const aboveZero: unknown[] = [];
    for (const batch of batches) {
      store.insert(batch);
      sums.refresh();
      const results = sums.read();
      aboveZero.push(results[0]!.rows[0]!.ranked_above_zero);
      expectSameAsPlainSql(results, store.db, [tile]);
    }
    // a 5 → −5 → 0, b −3 → 1, c 0 → gone → 3, d out → 2, e 1 → 0 → gone.
    expect(aboveZero).toEqual([2, 3, 2, 3]);
  });

  it('count a store from before rankings from its kept sums, without counting its events again', () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'collector.db');
    const first = openCollectorStore(file);
    first.insert(simulateFleet({ seed: 23, installs: 110, nowMs: NOW, events: RANKED_EVENTS }));
    const expected = ranked(first.tiles.read());
    first.close();
    const old = new Database(file);
    old.exec('DROP TABLE dash_tokens_saved_ranked; DROP TABLE dash_memory_searches_ranked; DROP TABLE dashboard_ranked');
    old.close();

    store = openCollectorStore(file);
    expect(store.tiles.refresh().pending).toBe(0);
    const results = ranked(store.tiles.read());
    expect(compareTileResults(results, expected).identical).toBe(compareTileResults(results, expected).cells);
    expectSameAsPlainSql(results, store.db, RANKED);
    store.insert(simulateFleet({ seed: 24, installs: 5, nowMs: NOW, events: RANKED_EVENTS }));
    expectSameAsPlainSql(ranked(store.tiles.read()), store.db, RANKED);
  });

  it('count a ranking again from the sums when another writer moved the sums without it', () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'collector.db');
    store = openCollectorStore(file);
    store.insert(simulateFleet({ seed: 25, installs: 110, nowMs: NOW, events: RANKED_EVENTS }));
    expectSameAsPlainSql(ranked(store.tiles.read()), store.db, RANKED);
    // What an older memtrace leaves: sums moved on, the ranking where it was (here: emptied, and behind).
    const older = new Database(file);
    older.exec('DELETE FROM dash_memory_searches_ranked; UPDATE dashboard_ranked SET through_seq = through_seq - 1');
    older.close();
    expectSameAsPlainSql(ranked(store.tiles.read()), store.db, RANKED);
    store.insert(simulateFleet({ seed: 26, installs: 3, nowMs: NOW, events: RANKED_EVENTS }));
    expectSameAsPlainSql(ranked(store.tiles.read()), store.db, RANKED);
  });

  it('move nothing in the ranking for a batch that failed', () => {
    store = openCollectorStore(':memory:');
    const fleet = simulateFleet({ seed: 27, installs: 110, nowMs: NOW, events: RANKED_EVENTS });
    store.insert(fleet.slice(0, 10_000));
    const broken = { ...fleet[10_000]!, properties: { count: 10n } };
    expect(() => store!.insert([...fleet.slice(10_000, 12_000), broken])).toThrow();
    store.insert(fleet.slice(10_000));
    expectSameAsPlainSql(ranked(store.tiles.read()), store.db, RANKED);
  });
});
