import type Database from 'better-sqlite3';
import { compileSQLite } from './compile.js';
import type { Tile } from './tile-ir.js';
import { TILES } from './tiles.js';

export type TileRow = Record<string, string | number | null>;

export interface TileResult {
  tile: Tile;
  columns: string[];
  rows: TileRow[];
  ms: number;
}

/** Runs every tile's SQLite compilation against a collector store. */
export function runTiles(db: Database.Database, tiles: readonly Tile[] = TILES): TileResult[] {
  return tiles.map((tile) => {
    const compiled = compileSQLite(tile);
    const started = performance.now();
    const rows = db.prepare(compiled.sql).all() as TileRow[];
    return { tile, columns: compiled.columns, rows, ms: performance.now() - started };
  });
}
