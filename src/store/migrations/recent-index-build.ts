import type Database from 'better-sqlite3';
import type { ParsedSummary } from '../../vocabulary/observation.js';
import { toStoredObservation } from '../observations.js';
import { RECENT_OBSERVATIONS, RECENT_SUMMARIES, SEARCH_COLUMNS, SEARCH_RECENT_TABLE, SEARCH_TABLE } from '../search-index.js';
import { observationDocument, summaryDocument } from '../search-text.js';

const T = SEARCH_RECENT_TABLE;

/**
 * `memory_fts_recent` with the main index's columns and tokenizer, filled from the newest
 * RECENT_OBSERVATIONS observations and RECENT_SUMMARIES summaries (a bounded number: well under a
 * second whatever the store's size); deletion triggers remove a forgotten row from it as from the
 * main index. `secure-delete`, as on the main index: forget leaves no word of a removed row in its
 * pages.
 */
export function buildRecentIndex(db: Database.Database): void {
  const sql = String(db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(SEARCH_TABLE) ?? '');
  const tokenize = /tokenize\s*=\s*("(?:[^"]|"")*"|'(?:[^']|'')*')/i.exec(sql)?.[1] ?? "'porter unicode61 remove_diacritics 2'";
  db.exec(`
    CREATE VIRTUAL TABLE ${T} USING fts5(${SEARCH_COLUMNS.join(', ')}, content = '', contentless_delete = 1, tokenize = ${tokenize});
    INSERT INTO ${T} (${T}, rank) VALUES ('secure-delete', 1);
    CREATE TRIGGER observations_search_recent_delete AFTER DELETE ON observations BEGIN
      DELETE FROM ${T} WHERE rowid = old.id;
    END;
    CREATE TRIGGER summaries_search_recent_delete AFTER DELETE ON summaries BEGIN
      DELETE FROM ${T} WHERE rowid = -old.id;
    END;
  `);
  const insert = db.prepare(`INSERT INTO ${T} (rowid, ${SEARCH_COLUMNS.join(', ')}) VALUES (@rowid, ${SEARCH_COLUMNS.map((c) => `@${c}`).join(', ')})`);
  // Read first: a connection cannot write while it iterates.
  for (const row of db.prepare('SELECT * FROM observations ORDER BY id DESC LIMIT ?').all(RECENT_OBSERVATIONS) as Array<Record<string, unknown>>) {
    insert.run({ rowid: row.id, ...observationDocument(toStoredObservation(row)) });
  }
  const summaries = db.prepare('SELECT id, request, investigated, learned, completed, next_steps, notes FROM summaries ORDER BY id DESC LIMIT ?');
  for (const row of summaries.all(RECENT_SUMMARIES) as Array<ParsedSummary & { id: number }>) {
    insert.run({ rowid: -row.id, ...summaryDocument(row) });
  }
}

/** Whether the recent index holds more rows of a kind than today's window (an older memtrace kept a wider one). */
export function recentIndexWiderThanWindow(db: Database.Database): boolean {
  const rows = db.prepare(`SELECT count(*) FILTER (WHERE id > 0) AS observations, count(*) FILTER (WHERE id < 0) AS summaries FROM ${T}_docsize`);
  const { observations, summaries } = rows.get() as { observations: number; summaries: number };
  return observations > RECENT_OBSERVATIONS || summaries > RECENT_SUMMARIES;
}

/** Drops the recent index and its triggers (secure_delete zeroes the freed pages). */
export function dropRecentIndex(db: Database.Database): void {
  db.exec(`
    DROP TRIGGER observations_search_recent_delete;
    DROP TRIGGER summaries_search_recent_delete;
    DROP TABLE ${T};
  `);
}
