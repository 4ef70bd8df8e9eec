import type Database from 'better-sqlite3';
import type { ParsedObservation, ParsedSummary } from '../vocabulary/observation.js';
import { observationDocument, summaryDocument, type SearchDocument } from './search-text.js';

/**
 * The full-text index over observations and session summaries (`memory_fts`, step 0500): one
 * FTS5 table, so bm25 ranks both kinds on the same corpus statistics. Rowids name the row: an
 * observation's id as is, a summary's id negated. Rows are added by the store's inserts inside
 * the caller's transaction and removed by triggers on delete, so the index never drifts from the
 * tables.
 *
 * Beside it, `memory_fts_recent` (step 1200) indexes the same documents of the newest
 * RECENT_OBSERVATIONS observations and RECENT_SUMMARIES summaries only: a store of any size can
 * rank its recent memory whole at the cost of a small store (docs/memory.md#search-at-scale).
 * Each insert adds its row and drops the one that fell out of the window.
 */
export const SEARCH_TABLE = 'memory_fts';
export const SEARCH_RECENT_TABLE = 'memory_fts_recent';
/** Its columns, in order (bm25's column weights follow this order). */
export const SEARCH_COLUMNS = ['title', 'subtitle', 'narrative', 'facts', 'concepts', 'files', 'terms'] as const;
/** The windows search ranks whole (src/memory/search-hybrid.ts); step 1400 cut an older, wider index to them. */
export const RECENT_OBSERVATIONS = 2_500;
export const RECENT_SUMMARIES = 250;

const observationRowid = (id: number) => id;
const summaryRowid = (id: number) => -id;

const insertSql = (table: string) =>
  `INSERT INTO ${table} (rowid, ${SEARCH_COLUMNS.join(', ')}) VALUES (@rowid, ${SEARCH_COLUMNS.map((c) => `@${c}`).join(', ')})`;

export function createSearchIndex(db: Database.Database) {
  const insert = db.prepare(insertSql(SEARCH_TABLE));
  // Absent until step 1200 (the steps before it index through here too).
  const hasRecent = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(SEARCH_RECENT_TABLE) !== undefined;
  const recent = hasRecent
    ? {
        insert: db.prepare(insertSql(SEARCH_RECENT_TABLE)),
        // What fell out of the window, found in FTS5's docsize table (a rowid range there is a b-tree
        // read; the same range on the FTS5 table scans every row of it), then deleted by rowid.
        outOfObservations: db.prepare(`SELECT id FROM ${SEARCH_RECENT_TABLE}_docsize WHERE id > 0 AND id <= ?`).pluck(),
        outOfSummaries: db.prepare(`SELECT id FROM ${SEARCH_RECENT_TABLE}_docsize WHERE id < 0 AND id >= ?`).pluck(),
        drop: db.prepare(`DELETE FROM ${SEARCH_RECENT_TABLE} WHERE rowid = ?`),
        newestObservation: db.prepare('SELECT max(id) FROM observations').pluck(),
        newestSummary: db.prepare('SELECT max(id) FROM summaries').pluck(),
      }
    : null;
  const addRecent = (id: number, rowid: (id: number) => number, window: number, newest: Database.Statement, out: Database.Statement, doc: SearchDocument) => {
    const top = Number(newest.get() ?? id);
    // An imported row keeps its older id: it joins only if it is among the newest.
    if (id <= top - window) return;
    recent!.insert.run({ rowid: rowid(id), ...doc });
    for (const old of out.all(rowid(top - window)) as number[]) recent!.drop.run(old);
  };
  return {
    addObservation(id: number, observation: ParsedObservation) {
      const doc = observationDocument(observation);
      insert.run({ rowid: observationRowid(id), ...doc });
      if (recent) addRecent(id, observationRowid, RECENT_OBSERVATIONS, recent.newestObservation, recent.outOfObservations, doc);
    },
    addSummary(id: number, summary: ParsedSummary) {
      const doc = summaryDocument(summary);
      insert.run({ rowid: summaryRowid(id), ...doc });
      if (recent) addRecent(id, summaryRowid, RECENT_SUMMARIES, recent.newestSummary, recent.outOfSummaries, doc);
    },
  };
}
