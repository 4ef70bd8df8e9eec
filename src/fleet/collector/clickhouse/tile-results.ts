import type { TileRow } from '../../dashboards/tile-result.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

/**
 * Every tile's rows as last computed from the kept states, one row per tile, so a read is one
 * small query however many installs the states hold (at 10 M events a fleet has ~28 000, and
 * merging their per-install states costs ClickHouse 25–65 ms a tile). The store computes them
 * after each insert. Each computation is versioned by the server time at which it started
 * reading, and the newest wins, so of two collectors on one server the one that read the most
 * events is the one served.
 */
export interface TileResults {
  /** The rows kept for each of these keys (a key missing: never computed). */
  read(keys: readonly string[]): Promise<Map<string, TileRow[]>>;
  /** The server's time, read before computing the rows to keep. */
  now(): Promise<string>;
  write(readAt: string, rows: ReadonlyMap<string, readonly TileRow[]>): Promise<void>;
}

/** Bump when the rows kept for the same key change shape (not only the SQL that computes them). */
export const TILE_RESULTS_VERSION = 1;

export const tileResultsDefinition = (table: string) =>
  `CREATE TABLE IF NOT EXISTS ${table} (tile String, read_at DateTime64(6, 'UTC'), rows String) ENGINE = ReplacingMergeTree(read_at) ORDER BY tile`;

export function tileResults(connection: ClickHouseConnection, table: string): TileResults {
  return {
    async read(keys) {
      if (keys.length === 0) return new Map();
      const list = keys.map((k) => `'${k.replace(/[^A-Za-z0-9_]/g, '')}'`).join(', ');
      const rows = await connection.rows<{ tile: string; rows: string }>(
        `SELECT tile, argMax(rows, read_at) AS rows FROM ${table} WHERE tile IN (${list}) GROUP BY tile`,
      );
      return new Map(rows.map((r) => [r.tile, JSON.parse(r.rows) as TileRow[]]));
    },
    async now() {
      const [row] = await connection.rows<{ t: string }>(`SELECT toString(now64(6, 'UTC')) AS t`);
      return row!.t;
    },
    async write(readAt, rows) {
      // Written as JSON, never spliced into SQL: the server refuses a time it cannot read.
      const lines = [...rows].map(([tile, tileRows]) => JSON.stringify({ tile, read_at: readAt, rows: JSON.stringify(tileRows) }));
      if (lines.length > 0) await connection.insertRows(table, lines.join('\n'));
    },
  };
}
