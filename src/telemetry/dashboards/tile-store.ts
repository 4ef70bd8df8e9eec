import type Database from 'better-sqlite3';
import { compileSQLite, type CompiledSQLite } from './compile-sqlite.js';
import type { Tile } from './tile-ir.js';
import type { TileResult, TileRow } from './tile-result.js';
import { TILES } from './tiles.js';

export interface RefreshStats {
  /** Stored events the tiles had not yet counted, before this refresh. */
  pending: number;
  ms: number;
}

export interface TileAggregates {
  /** Adds every event stored since the last refresh to each tile's sums. */
  refresh(onProgress?: (done: number, total: number) => void): RefreshStats;
  /** Refreshes, then reads every tile from its sums. */
  read(): TileResult[];
}

/** Rows per transaction while catching up, so a large backlog reports progress and other writers get turns. */
const CHUNK_ROWS = 250_000;

/**
 * Per-tile tables of sums over the collector's `events`, kept current from the rows added since
 * the last refresh (by `seq`). Reading the dashboard is then independent of the store's size. A
 * tile whose compiled SQL changed is rebuilt from scratch. Every step runs in an IMMEDIATE
 * transaction that re-reads its watermark, so two processes refreshing never count a row twice.
 */
export function openTileAggregates(db: Database.Database, tiles: readonly Tile[] = TILES): TileAggregates {
  const compiled = tiles.map((tile) => ({ tile, sql: compileSQLite(tile) }));
  db.exec('CREATE TABLE IF NOT EXISTS dashboard_tiles (tile TEXT PRIMARY KEY, definition TEXT NOT NULL, through_seq INTEGER NOT NULL)');
  const state = db.prepare<[string], { definition: string; through_seq: number }>('SELECT definition, through_seq FROM dashboard_tiles WHERE tile = ?');
  const setState = db.prepare('INSERT INTO dashboard_tiles (tile, definition, through_seq) VALUES (?, ?, ?) ON CONFLICT (tile) DO UPDATE SET definition = excluded.definition, through_seq = excluded.through_seq');
  const advance = db.prepare('UPDATE dashboard_tiles SET through_seq = ? WHERE tile = ?');
  const maxSeq = db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM events');
  const definitionOf = (sql: CompiledSQLite) => `${sql.createTable};\n${sql.maintain}`;

  db.transaction(() => {
    for (const { tile, sql } of compiled) {
      const definition = definitionOf(sql);
      if (state.get(tile.id)?.definition === definition) continue;
      db.exec(`DROP TABLE IF EXISTS "${sql.table}"`);
      db.exec(sql.createTable);
      setState.run(tile.id, definition, 0);
    }
  }).immediate();

  const maintain = compiled.map(({ tile, sql }) => ({ tile, statement: db.prepare(sql.maintain) }));
  const reads = compiled.map(({ tile, sql }) => ({ tile, sql, statement: db.prepare(sql.read) }));

  /** One chunk of one tile; returns how far it got. */
  const step = db.transaction((tile: Tile, statement: Database.Statement, upTo: number): number => {
    const through = state.get(tile.id)?.through_seq ?? 0;
    if (through >= upTo) return through;
    const to = Math.min(upTo, through + CHUNK_ROWS);
    statement.run({ from: through, to });
    advance.run(to, tile.id);
    return to;
  });

  const refresh = (onProgress?: (done: number, total: number) => void): RefreshStats => {
    const started = performance.now();
    const upTo = maxSeq.get()?.seq ?? 0;
    const starts = maintain.map(({ tile }) => state.get(tile.id)?.through_seq ?? 0);
    const pending = Math.max(0, ...starts.map((s) => upTo - s));
    const total = starts.reduce((n, s) => n + Math.max(0, upTo - s), 0);
    let done = 0;
    maintain.forEach(({ tile, statement }, i) => {
      let at = starts[i]!;
      while (at < upTo) {
        const next = step.immediate(tile, statement, upTo);
        done += next - at;
        at = next;
        onProgress?.(done, total);
      }
    });
    return { pending, ms: performance.now() - started };
  };

  return {
    refresh,
    read() {
      refresh();
      return reads.map(({ tile, sql, statement }) => {
        const started = performance.now();
        const rows = statement.all() as TileRow[];
        return { tile, columns: sql.columns, rows, ms: performance.now() - started };
      });
    },
  };
}

/** Every tile in one pass over the raw events each, without the stored sums (slow on big stores; for checks). */
export function queryTilesDirect(db: Database.Database, tiles: readonly Tile[] = TILES): TileResult[] {
  return tiles.map((tile) => {
    const sql = compileSQLite(tile);
    const started = performance.now();
    const rows = db.prepare(sql.query).all() as TileRow[];
    return { tile, columns: sql.columns, rows, ms: performance.now() - started };
  });
}
