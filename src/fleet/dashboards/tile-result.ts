import type { Tile } from './tile-ir.js';

export type TileRow = Record<string, string | number | null>;

/** One tile computed: its rows in the compiled column order, and how long the query took. */
export interface TileResult {
  tile: Tile;
  columns: string[];
  rows: TileRow[];
  ms: number;
}

/**
 * A tile cell is a finite number, a string or null. A sum past Float64 (inf) or a 0/0 (NaN) is
 * shown as unknown: ClickHouse answers both as null in JSON, and a chart cannot draw them.
 */
export function finiteCells(rows: TileRow[]): TileRow[] {
  for (const row of rows) for (const [k, v] of Object.entries(row)) if (typeof v === 'number' && !Number.isFinite(v)) row[k] = null;
  return rows;
}
