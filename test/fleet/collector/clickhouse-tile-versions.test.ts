import { describe, expect, it } from 'vitest';
import { openClickHouseStore } from '../../../src/fleet/collector/clickhouse/clickhouse-store.js';
import { simulateFleet, TILES } from '../../../src/fleet/dashboards/index.js';
import { chdbForSuite } from '../../support/chdb-suite.js';
import { expectKeptEqualsPlain } from '../../support/expect-kept-tiles.js';

const NOW = Date.UTC(2026, 7, 19, 12);

/** The tiles' states across versions of the tile definitions, in one ClickHouse database. */
describe('tile states when the tiles change', () => {
  const chdb = chdbForSuite();
  const fleet = simulateFleet({ seed: 7, installs: 10, nowMs: NOW }).slice(0, 1_200);
  // A changed definition is a tile the store has never counted: a new key, counted from the stored events.
  const changed = TILES.map((tile, i) => (i === 0 ? { ...tile, id: `${tile.id}-v2` } : tile));
  const tables = async () => (await chdb.connection().rows<{ name: string }>("SELECT name FROM system.tables WHERE database = 'memtrace'")).map((r) => r.name);
  const keys = async () => {
    const [table] = (await tables()).filter((n) => n.startsWith('tile_states_'));
    return (await chdb.connection().rows<{ tile: string }>(`SELECT DISTINCT tile FROM memtrace.${table}`)).map((r) => r.tile).sort();
  };

  it('drops the tables of the per-tile layout an older collector left', async () => {
    await chdb.connection().command('CREATE TABLE memtrace.tile_0badc0de_hosts (xk String, series String) ENGINE = AggregatingMergeTree ORDER BY (xk, series)');
    const store = await openClickHouseStore(chdb.connection(), { database: 'memtrace', handoffMs: 0 });
    await store.insert(fleet.slice(0, 600));
    await expectKeptEqualsPlain(store);
    expect(await tables()).not.toContain('tile_0badc0de_hosts');
  });

  it('counts a changed tile from the stored events, drops the old one, and keeps counting once', async () => {
    const before = await keys();
    const store = await openClickHouseStore(chdb.connection(), { database: 'memtrace', tiles: changed, handoffMs: 0 });
    const after = await keys();
    const [oldKey] = before.filter((k) => !after.includes(k));
    const [newKey] = after.filter((k) => !before.includes(k));
    expect(oldKey).toMatch(new RegExp(`_${TILES[0]!.id.replace(/[^a-z0-9_]/gi, '_')}$`));
    expect(newKey).toMatch(/_v2$/);
    expect(await tables()).not.toContain(`${oldKey}_mv`);
    expect(await tables()).toContain(`${newKey}_mv`);
    await store.insert(fleet.slice(600));
    await expectKeptEqualsPlain(store);
  });

  it('counts anew, not twice, a tile whose build was interrupted before it was marked counted', async () => {
    const [newKey] = (await keys()).filter((k) => k.endsWith('_v2'));
    await chdb.connection().command(`ALTER TABLE memtrace.memtrace_ready DELETE WHERE name = '${newKey}' SETTINGS mutations_sync = 2`);
    const store = await openClickHouseStore(chdb.connection(), { database: 'memtrace', tiles: changed, handoffMs: 0 });
    expect(await store.count()).toBe(fleet.length);
    await expectKeptEqualsPlain(store);
  });
});
