import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCollectorStore, type CollectorStore } from '../../../src/fleet/collector/index.js';
import { openChdbConnection } from '../../../src/fleet/collector/clickhouse/chdb-connection.js';
import type { ClickHouseConnection } from '../../../src/fleet/collector/clickhouse/clickhouse-connection.js';
import { openClickHouseStore } from '../../../src/fleet/collector/clickhouse/clickhouse-store.js';
import type { FleetStore } from '../../../src/fleet/collector/fleet-store.js';
import { openTileSums, queryTilesDirect, TILES, type TileResult } from '../../../src/fleet/dashboards/index.js';
import { localReviewSource, REVIEW_SUMS_TILE, runReview, type Review } from '../../../src/fleet/review/index.js';
import { reviewSourceFromRows } from '../../../src/fleet/review/tile-rows-review-source.js';
import { postHogEventsTable, queryTilesOnClickHouse } from '../../support/clickhouse-raw.js';
import { hostileFleet } from '../../support/hostile-fleet.js';
import { makeTempDir } from '../../support/temp-dir.js';
import { compareTileResults, type TileComparison } from '../../support/tile-compare.js';

/** Counts exactly; sums and ratios to 1e-9 relative. */
function expectEqual(comparison: TileComparison): void {
  expect(comparison.shape_mismatches).toEqual([]);
  expect(comparison.count_mismatches, comparison.examples.join('\n')).toBe(0);
  expect(comparison.max_relative_difference, comparison.examples.join('\n')).toBeLessThanOrEqual(1e-9);
}

/** Two reviews equal: installs and verdicts exactly, every number to 1e-9 relative (unknown on both is equal). */
function expectSameReview(a: Review, b: Review): void {
  expect(a.measures.map((m) => [m.id, m.verdict, m.baseline.installs, m.candidate.installs])).toEqual(
    b.measures.map((m) => [m.id, m.verdict, m.baseline.installs, m.candidate.installs]),
  );
  const numbers = (r: Review) =>
    r.measures.flatMap((m) => [m.baseline, m.candidate, m.difference].flatMap((i) => [i.value, i.low, i.high]).concat([m.min_detectable]));
  const [x, y] = [numbers(a), numbers(b)];
  x.forEach((v, i) => {
    const w = y[i];
    if (v === null || w === null || !Number.isFinite(v) || !Number.isFinite(w!))
      expect(Number.isFinite(v ?? Number.NaN)).toBe(Number.isFinite(w ?? Number.NaN));
    else expect(Math.abs(v - w!) / Math.max(Math.abs(v), Math.abs(w!), 1e-300)).toBeLessThanOrEqual(1e-9);
  });
}

const ALL = [...TILES, REVIEW_SUMS_TILE];

// Every tile's query on embedded ClickHouse: about 8 s a test at load 10, over 30 s at load 15 on two cores.
describe('the ClickHouse target on embedded ClickHouse (chdb)', { timeout: 180_000 }, () => {
  const temp = makeTempDir();
  let connection: ClickHouseConnection;
  let sqlite: CollectorStore;
  let store: FleetStore;
  let rawTable: string;
  const fleet = hostileFleet({ seed: 30, installs: 40, odd: 2_500 });

  beforeAll(async () => {
    connection = await openChdbConnection(temp.dir);
    await connection.command('CREATE DATABASE IF NOT EXISTS memtrace');
    store = await openClickHouseStore(connection, { database: 'memtrace', handoffMs: 0 });
    sqlite = openCollectorStore(':memory:');
    // Batches overlap, as a client's retries do: every uuid arrives at least once, some twice.
    const events = fleet.withDuplicates;
    for (let i = 0; i < events.length; i += 4_000) {
      const batch = events.slice(Math.max(0, i - 300), i + 4_000);
      sqlite.insert(batch);
      await store.insert(batch);
    }
    rawTable = await postHogEventsTable(connection, 'posthog', events);
  }, 600_000);

  afterAll(async () => {
    await store?.close();
    sqlite?.close();
    temp.cleanup();
  });

  it('keeps exactly one row per uuid, as SQLite does', async () => {
    expect(sqlite.count()).toBe(fleet.unique.length);
    expect(await store.count()).toBe(fleet.unique.length);
    const [raw] = await connection.rows<{ n: number; u: number }>(`SELECT count() AS n, uniqExact(uuid) AS u FROM ${rawTable}`);
    expect(Number(raw!.n)).toBe(fleet.withDuplicates.length);
    expect(Number(raw!.u)).toBe(fleet.unique.length);
  });

  it('computes every tile cell on PostHog-shaped events (duplicates and all) as SQLite does', async () => {
    const reference = queryTilesDirect(sqlite.db, ALL);
    const clickhouse = await queryTilesOnClickHouse(connection, rawTable, ALL);
    const comparison = compareTileResults(clickhouse, reference);
    expectEqual(comparison);
    expect(comparison.cells).toBeGreaterThan(5_000);
    console.info(
      `ClickHouse target vs SQLite: ${comparison.cells} cells, ${comparison.identical} identical to the bit, max relative difference ${comparison.max_relative_difference}`,
    );
  });

  it('reads every tile from the aggregates kept at ingest as the plain query computes it', async () => {
    expectEqual(compareTileResults(await store.readTiles(), await store.queryTilesPlain()));
    expectEqual(compareTileResults(await store.readTiles(), sqlite.tiles.read() as TileResult[]));
  });

  it('keeps the same ends, median and counts of a cut ranking on ClickHouse as on SQLite, from raw events and from kept sums', async () => {
    const cut = TILES.filter((t) => t.keep).map((t) => ({ ...t, keep: { ends: 3 } }));
    expect(cut.length).toBeGreaterThan(0);
    const reference = queryTilesDirect(sqlite.db, cut);
    for (const result of reference) {
      expect(result.rows).toHaveLength(7);
      expect(Number(result.rows[0]!.ranked_of)).toBeGreaterThan(7);
      expect(result.rows.map((r) => r.ranked_position)).toEqual([...new Set(result.rows.map((r) => r.ranked_position))].sort((a, b) => Number(a) - Number(b)));
    }
    expectEqual(compareTileResults(await queryTilesOnClickHouse(connection, rawTable, cut), reference));
    const kept = openTileSums(sqlite.db, cut);
    kept.refresh();
    expectEqual(compareTileResults(kept.read(), reference));
  });

  it('gives every review measure, for every pair of versions, as the SQLite store does', async () => {
    const local = localReviewSource(sqlite.db, sqlite.review, 'sqlite');
    const raw = reviewSourceFromRows(
      {
        rows: async (versions) =>
          (await queryTilesOnClickHouse(connection, rawTable, [REVIEW_SUMS_TILE]))[0]!.rows.filter((r) => versions.includes(String(r.series))),
        versions: async () => [],
      },
      'raw',
    );
    for (const [baseline, candidate] of [
      ['0.1.0', '0.2.0'],
      ['0.2.0', '0.3.0'],
      ['0.1.0', '0.3.0'],
      ['13.6.0', '0.1.0'],
    ] as const) {
      const expected = await runReview(local, baseline, candidate);
      expectSameReview(await runReview(store.reviewSource(), baseline, candidate), expected);
      expectSameReview(await runReview(raw, baseline, candidate), expected);
    }
  });
});
