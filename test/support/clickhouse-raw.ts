import type { CollectedEvent } from '../../src/fleet/collector/index.js';
import type { ClickHouseConnection } from '../../src/fleet/collector/clickhouse/clickhouse-connection.js';
import { serverTime } from '../../src/fleet/collector/clickhouse/clickhouse-schema.js';
import { storedProperties } from '../../src/fleet/collector/stored-properties.js';
import { compileClickHouse } from '../../src/fleet/dashboards/compile-clickhouse.js';
import { finiteCells, type TileResult, type TileRow } from '../../src/fleet/dashboards/tile-result.js';
import type { Tile } from '../../src/fleet/dashboards/index.js';

/**
 * A table in PostHog's `events` shape filled as PostHog's ingestion leaves it before a merge:
 * every copy of a re-sent event kept (no uuid guard), team 1. The tiles' ClickHouse target is
 * run over it exactly as PostHog would run the exported HogQL.
 */
export async function postHogEventsTable(connection: ClickHouseConnection, database: string, events: readonly CollectedEvent[]): Promise<string> {
  const table = `${database}.events`;
  await connection.command(`CREATE DATABASE IF NOT EXISTS ${database}`);
  await connection.command(
    `CREATE TABLE IF NOT EXISTS ${table} (uuid UUID, event String, properties String, timestamp DateTime64(6, 'UTC'), team_id Int64, distinct_id String) ENGINE = MergeTree ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))`,
  );
  for (let i = 0; i < events.length; i += 5_000) {
    const rows = events.slice(i, i + 5_000).map((e) =>
      JSON.stringify({
        uuid: e.uuid,
        event: e.event,
        properties: storedProperties(e.properties).json,
        timestamp: serverTime(e.timestamp),
        team_id: 1,
        distinct_id: e.distinctId,
      }),
    );
    await connection.insertRows(table, rows.join('\n'));
  }
  return table;
}

/** Every tile by its ClickHouse target over a PostHog-shaped table. */
export async function queryTilesOnClickHouse(connection: ClickHouseConnection, table: string, tiles: readonly Tile[]): Promise<TileResult[]> {
  const out: TileResult[] = [];
  for (const tile of tiles) {
    const compiled = compileClickHouse(tile, { table, teamId: 1 });
    const started = performance.now();
    const rows = finiteCells(await connection.rows<TileRow>(compiled.sql));
    out.push({ tile, columns: compiled.columns, rows, ms: performance.now() - started });
  }
  return out;
}
