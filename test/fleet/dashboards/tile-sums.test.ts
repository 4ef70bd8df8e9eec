import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCollectorStore, type CollectorStore } from '../../../src/fleet/collector/index.js';
import { queryTilesDirect, simulateFleet, TILES, type Tile } from '../../../src/fleet/dashboards/index.js';
import { openTileSums } from '../../../src/fleet/dashboards/index.js';
import { makeTempDir } from '../../support/temp-dir.js';
import { oddEvents } from '../../support/hostile-fleet.js';
import { compareTileResults } from '../../support/tile-compare.js';

const NOW = Date.UTC(2026, 7, 19, 12);

function expectSameAsPlainSql(store: CollectorStore): void {
  const comparison = compareTileResults(store.tiles.read(), queryTilesDirect(store.db));
  expect(comparison.shape_mismatches).toEqual([]);
  expect(comparison.max_relative_difference).toBe(0);
  expect(comparison.identical).toBe(comparison.cells);
}

describe('tile sums kept at ingest', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  afterEach(() => temp?.cleanup());

  it('equal the plain compiled SQL cell for cell on a simulated fleet', () => {
    const store = openCollectorStore(':memory:');
    const fleet = simulateFleet({ seed: 11, installs: 70, nowMs: NOW });
    for (let i = 0; i < fleet.length; i += 250) store.insert(fleet.slice(i, i + 250));
    expect(store.count()).toBeGreaterThan(15_000);
    expectSameAsPlainSql(store);
  });

  it('equal the plain compiled SQL on odd property values (numbers as text, booleans, objects, null, huge, nested)', () => {
    const store = openCollectorStore(':memory:');
    const events = oddEvents(3_000, 5);
    for (let i = 0; i < events.length; i += 37) store.insert(events.slice(i, i + 37));
    expectSameAsPlainSql(store);
  });

  it('count a uuid once, and nothing of a batch that failed', () => {
    const store = openCollectorStore(':memory:');
    const fleet = simulateFleet({ seed: 3, installs: 20, nowMs: NOW });
    store.insert(fleet.slice(0, 2_000));
    store.insert(fleet.slice(1_000, 3_000));
    // A property JSON cannot hold makes the whole batch roll back, sums included.
    const broken = { ...fleet[3_000]!, properties: { count: 10n } };
    expect(() => store.insert([...fleet.slice(3_000, 3_500), broken])).toThrow();
    store.insert(fleet.slice(3_000, 4_000));
    expect(store.count()).toBe(4_000);
    expectSameAsPlainSql(store);
  });

  it('stay exact when two connections write the same file in turn', () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'collector.db');
    const a = openCollectorStore(file);
    const b = openCollectorStore(file);
    const fleet = simulateFleet({ seed: 4, installs: 20, nowMs: NOW });
    for (let i = 0; i < fleet.length; i += 500) (i % 1_000 === 0 ? a : b).insert(fleet.slice(i, i + 500));
    expectSameAsPlainSql(a);
    expectSameAsPlainSql(b);
    a.close();
    b.close();
  });

  it('count the events stored before them once, and rebuild a tile whose definition changed', () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'collector.db');
    const first = openCollectorStore(file);
    first.insert(simulateFleet({ seed: 9, installs: 20, nowMs: NOW }));
    first.db.exec('DELETE FROM dashboard_tiles');
    first.close();
    const store = openCollectorStore(file);
    const progress: number[] = [];
    const stats = store.tiles.refresh((done) => progress.push(done));
    expect(stats.pending).toBe(store.count());
    expect(progress.at(-1)).toBe(store.count());
    expect(store.tiles.refresh().pending).toBe(0);
    expectSameAsPlainSql(store);

    const changed: Tile[] = TILES.map((t) => (t.id === 'tokens-saved' ? { ...t, keep: { ends: 2 } } : t));
    const sums = openTileSums(store.db, changed);
    expect(sums.refresh().pending).toBe(store.count());
    expect(sums.read().find((r) => r.tile.id === 'tokens-saved')!.rows).toHaveLength(5);
    store.close();
  });
});
