import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCollectorStore, type CollectedEvent } from '../../src/fleet/collector/index.js';
import { openChdbConnection } from '../../src/fleet/collector/clickhouse/chdb-connection.js';
import type { ClickHouseConnection } from '../../src/fleet/collector/clickhouse/clickhouse-connection.js';
import { queryTilesDirect, TILES, type TileResult } from '../../src/fleet/dashboards/index.js';
import { postHogEventsTable, queryTilesOnClickHouse } from '../support/clickhouse-raw.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * Bugs (issue 30): the SQLite compiler read properties as SQLite does (json_extract, then CAST),
 * PostHog as its HogQL printer lowers them for ClickHouse. The same events then counted
 * differently on the local collector and on PostHog. Each case below is one difference found;
 * SQLite now reads as PostHog does, and ClickHouse itself (chdb) is the judge.
 */
const NOW = Date.UTC(2026, 7, 19, 12);
let n = 0;
const uuid = () => {
  n += 1;
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
};

/** A context rollup whose tokens saved (a number the tokens-saved tile sums) is `value`. */
const saved = (value: unknown): CollectedEvent => ({
  uuid: uuid(),
  event: 'context_injected_rollup',
  distinctId: 'install',
  timestamp: NOW,
  properties: { count: 1, total_tokens_saved_vs_naive: value },
});
/** An observer rollup whose model (the observation-types tile's x, a string) is `value`. */
const model = (value: unknown): CollectedEvent => ({
  uuid: uuid(),
  event: 'observer_turn_rollup',
  distinctId: 'install',
  timestamp: NOW,
  properties: { count: 1, top_model: value, obs_type_bugfix: 2 },
});

describe('SQLite reads a property as PostHog does', () => {
  const temp = makeTempDir();
  let connection: ClickHouseConnection;
  let database = 0;
  beforeAll(async () => {
    connection = await openChdbConnection(temp.dir);
  });
  afterAll(async () => {
    await connection?.close();
    temp.cleanup();
  });

  /** One tile on SQLite (plain and kept sums) and on ClickHouse over the same events; all three must agree. */
  async function tile(id: string, events: CollectedEvent[]): Promise<TileResult['rows']> {
    const wanted = TILES.filter((t) => t.id === id);
    const store = openCollectorStore(':memory:');
    store.insert(events);
    const plain = queryTilesDirect(store.db, wanted)[0]!.rows;
    const kept = store.tiles.read().find((r) => r.tile.id === id)!.rows;
    store.close();
    database += 1;
    const table = await postHogEventsTable(connection, `case${database}`, events);
    const clickhouse = (await queryTilesOnClickHouse(connection, table, wanted))[0]!.rows;
    expect(kept).toEqual(plain);
    expect(clickhouse).toEqual(plain);
    return plain;
  }
  const tokensSaved = async (value: unknown) => (await tile('tokens-saved', [saved(value)]))[0]?.tokens_saved;
  const modelName = async (value: unknown) => (await tile('observation-types', [model(value)]))[0]?.x;

  it('counts a number sent as text only when all of it is a number ("12abc" was 12, now 0)', async () => {
    expect(await tokensSaved('12abc')).toBe(0);
    expect(await tokensSaved('1e3')).toBe(1000);
  });

  it('counts text padded with spaces as no number (" 3.5" was 3.5, now 0)', async () => {
    expect(await tokensSaved(' 3.5')).toBe(0);
  });

  it('counts a boolean as no number (true was 1, now 0)', async () => {
    expect(await tokensSaved(true)).toBe(0);
  });

  it('reads a boolean as the text "true" (was "1")', async () => {
    expect(await modelName(true)).toBe('true');
  });

  it('writes a large or small number as ClickHouse does (1e21 was "1.0e+21", 9.3e18 "9.3e+18", 1e-7 "1.0e-07")', async () => {
    expect(await modelName(1e21)).toBe('1e21');
    expect(await modelName(9.3e18)).toBe('9300000000000000000');
    expect(await modelName(1e-7)).toBe('1e-7');
  });

  it('keeps the JSON escapes of a string, as PostHog strips only the quotes (a"b was a"b, now a\\"b)', async () => {
    expect(await modelName('a"b')).toBe('a\\"b');
    expect(await modelName('line\nbreak')).toBe('line\\nbreak');
    expect(await modelName('\u0001')).toBe('\\u0001');
    expect(await modelName('ls\u2028')).toBe('ls\\u2028');
  });

  it('writes an object back as ClickHouse does (no spaces, its number forms)', async () => {
    expect(await modelName({ a: 1e21, b: [true, null, 'é'] })).toBe('{"a":1e21,"b":[true,null,"é"]}');
  });

  it('counts "inf", "nan" and numbers beyond Float64 as no number on every target (ClickHouse casts them to inf and nan)', async () => {
    for (const value of ['inf', '-Infinity', 'nan', '1e400']) expect(await tokensSaved(value)).toBe(0);
  });

  it('still reads the other properties of an event holding a lone surrogate or an integer beyond 64 bits (ClickHouse read none of them)', async () => {
    const rows = await tile('tokens-saved', [
      { ...saved(5), properties: { count: 1, total_tokens_saved_vs_naive: 5, note: 'lone\ud800' } },
      { ...saved(7), properties: { count: 1, total_tokens_saved_vs_naive: 7, big: 1e20 } },
    ]);
    expect(rows[0]).toMatchObject({ tokens_saved: 12, injections: 2 });
  });

  it("shows a sum past Float64 as unknown on every store (SQLite's kept sums said NULL, its plain SQL inf)", async () => {
    expect(await (async () => (await tile('tokens-saved', [saved(1.7976931348623157e308), saved(1.7976931348623157e308)]))[0]?.tokens_saved)()).toBeNull();
  });
});
