import type { Tile } from './tile-ir.js';

export type TileRow = Record<string, string | number | null>;

/** One tile computed: its rows in the compiled column order, and how long the query took. */
export interface TileResult {
  tile: Tile;
  columns: string[];
  rows: TileRow[];
  ms: number;
}
