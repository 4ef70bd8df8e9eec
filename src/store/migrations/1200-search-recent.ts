import type { Migration } from '../migrate.js';
import { toStoredObservation } from '../observations.js';
import { RECENT_OBSERVATIONS, RECENT_SUMMARIES, SEARCH_COLUMNS, SEARCH_RECENT_TABLE, SEARCH_TABLE } from '../search-index.js';
import { observationDocument, summaryDocument } from '../search-text.js';
import type { ParsedSummary } from '../../vocabulary/observation.js';

/**
 * Search at scale (docs/memory.md#search-at-scale): a second FTS5 table over the newest
 * observations and summaries only, with the main index's columns and tokenizer, so a question of
 * common words is ranked whole over recent memory at the cost of a small store. Filled here from
 * the newest rows (a bounded number: about a second whatever the store's size), then kept by the
 * store's inserts; deletion triggers remove a forgotten row from it as from the main index.
 * `secure-delete`, as on the main index: forget leaves no word of a removed row in its pages.
 */
export const SEARCH_RECENT_SCHEMA: Migration = {
  id: '1200_search_recent',
  up(db) {
    const sql = String(db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(SEARCH_TABLE) ?? '');
    const tokenize = /tokenize\s*=\s*("(?:[^"]|"")*"|'(?:[^']|'')*')/i.exec(sql)?.[1] ?? "'porter unicode61 remove_diacritics 2'";
    const T = SEARCH_RECENT_TABLE;
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
  },
};
