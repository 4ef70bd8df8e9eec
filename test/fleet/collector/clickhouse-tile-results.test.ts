import { describe, expect, it } from 'vitest';
import type { ClickHouseConnection } from '../../../src/fleet/collector/clickhouse/clickhouse-connection.js';
import { openClickHouseStore } from '../../../src/fleet/collector/clickhouse/clickhouse-store.js';
import { simulateFleet, TILES } from '../../../src/fleet/dashboards/index.js';
import { chdbForSuite } from '../../support/chdb-suite.js';
import { expectKeptEqualsPlain } from '../../support/expect-kept-tiles.js';

const NOW = Date.UTC(2026, 7, 19, 12);
const RESULTS = 'memtrace.tile_results';

/** The rows a ClickHouse store keeps for every tile, read in one query. */
describe('tile rows kept by the ClickHouse store', () => {
  const chdb = chdbForSuite();
  const fleet = simulateFleet({ seed: 11, installs: 30, nowMs: NOW });
  const [first, second] = [fleet.slice(0, 2_000), fleet.slice(2_000, 4_000)];
  // Fails the next write of kept rows when set, as a server gone between the insert and the refresh would.
  let failResultsWrite = false;
  const flaky = (): ClickHouseConnection => ({
    ...chdb.connection(),
    insertRows: async (table, ndjson, options) => {
      if (table === RESULTS && failResultsWrite) {
        failResultsWrite = false;
        throw new Error('the server went away');
      }
      return chdb.connection().insertRows(table, ndjson, options);
    },
    close: async () => undefined,
  });

  it('serves, after each insert, the rows the states give, one kept row per tile', async () => {
    const store = await openClickHouseStore(flaky(), { database: 'memtrace', handoffMs: 0 });
    await store.insert(first);
    await expectKeptEqualsPlain(store);
    const [kept] = await chdb.connection().rows<{ tiles: number }>(`SELECT uniqExact(tile) AS tiles FROM ${RESULTS}`);
    expect(Number(kept!.tiles)).toBe(TILES.length);
    // A second store on the same database (another collector) serves what the first kept.
    const other = await openClickHouseStore(flaky(), { database: 'memtrace', handoffMs: 0 });
    await store.insert(second);
    expect(JSON.stringify((await other.readTiles()).map((r) => r.rows))).toBe(JSON.stringify((await store.readTiles()).map((r) => r.rows)));
    await expectKeptEqualsPlain(other);
  }, 120_000);

  it('keeps the rows again when the insert that stored events could not, though its retry stores nothing', async () => {
    const store = await openClickHouseStore(flaky(), { database: 'memtrace', handoffMs: 0 });
    // Another collector, opened before: it reads what is kept, and computes nothing itself.
    const other = await openClickHouseStore(flaky(), { database: 'memtrace', handoffMs: 0 });
    const third = fleet.slice(4_000, 5_000);
    expect(third.length).toBeGreaterThan(0);
    failResultsWrite = true;
    await expect(store.insert(third)).rejects.toThrow(/went away/);
    // The retry (the spool sends the batch again) stores no event, and still brings the kept rows up to date.
    expect(await store.insert(third)).toEqual({ stored: 0, duplicates: third.length });
    await expectKeptEqualsPlain(other);
    await expectKeptEqualsPlain(store);
  }, 120_000);
});
