import type Database from 'better-sqlite3';
import { SEARCH_TABLE } from './search-index.js';

/**
 * What bm25 reads about the whole index, taken from FTS5's own shadow tables without a scan:
 * the row count and token total (the "averages" record, id 1 of `memory_fts_data`) and a row's
 * length in tokens (`memory_fts_docsize`). Both are SQLite varints, as FTS5 writes them.
 */
export interface IndexTotals {
  rows: number;
  tokens: number;
  /** The highest rowid (the newest observation); 0 when there is none. */
  maxRowid: number;
  /** The lowest rowid (the newest summary, its id negated); 0 when there is none. */
  minRowid: number;
}

/** SQLite's varint: big-endian groups of 7 bits, high bit set on all but the last (the ninth byte holds 8 bits). */
export function readVarints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    let value = 0;
    let i = 0;
    for (; i < 8 && at < bytes.length; i += 1) {
      const byte = bytes[at++]!;
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    if (i === 8 && at < bytes.length) value = value * 256 + bytes[at++]!;
    out.push(value);
  }
  return out;
}

export function createSearchStats(db: Database.Database, table: string = SEARCH_TABLE) {
  const averages = db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).pluck();
  const maxRowid = db.prepare(`SELECT max(id) FROM ${table}_docsize`).pluck();
  const minRowid = db.prepare(`SELECT min(id) FROM ${table}_docsize`).pluck();
  const docsize = db.prepare(`SELECT id, sz FROM ${table}_docsize WHERE id IN (SELECT value FROM json_each(?))`).raw();
  const counts = (): number[] => {
    const block = averages.get() as Uint8Array | undefined;
    return block ? readVarints(block) : [];
  };
  return {
    totals(): IndexTotals {
      const [rows = 0, ...columns] = counts();
      return { rows, tokens: columns.reduce((a, b) => a + b, 0), maxRowid: Number(maxRowid.get() ?? 0), minRowid: Number(minRowid.get() ?? 0) };
    },
    /** The row count alone (no rowid bounds: two lookups fewer). */
    rows: (): number => counts()[0] ?? 0,
    /** Each row's length in tokens, all columns together (what bm25 calls D). */
    rowTokens(rowids: readonly number[]): Map<number, number> {
      const out = new Map<number, number>();
      for (const [id, sz] of docsize.all(JSON.stringify(rowids)) as Array<[number, Uint8Array]>) {
        out.set(
          id,
          readVarints(sz).reduce((a, b) => a + b, 0),
        );
      }
      return out;
    },
  };
}
