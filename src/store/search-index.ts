import type Database from 'better-sqlite3';
import type { ParsedObservation, ParsedSummary } from '../vocabulary/observation.js';
import { observationDocument, summaryDocument, type SearchDocument } from './search-text.js';

/**
 * The full-text index over observations and session summaries (`memory_fts`, step 0500): one
 * FTS5 table, so bm25 ranks both kinds on the same corpus statistics. Rowids name the row: an
 * observation's id as is, a summary's id negated. Rows are added by the store's inserts inside
 * the caller's transaction and removed by triggers on delete, so the index never drifts from the
 * tables.
 */
export const SEARCH_TABLE = 'memory_fts';

const observationRowid = (id: number) => id;
const summaryRowid = (id: number) => -id;

export function createSearchIndex(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO ${SEARCH_TABLE} (rowid, title, subtitle, narrative, facts, concepts, files, terms) VALUES (@rowid, @title, @subtitle, @narrative, @facts, @concepts, @files, @terms)`,
  );
  const add = (rowid: number, doc: SearchDocument) => void insert.run({ rowid, ...doc });
  return {
    addObservation: (id: number, observation: ParsedObservation) => add(observationRowid(id), observationDocument(observation)),
    addSummary: (id: number, summary: ParsedSummary) => add(summaryRowid(id), summaryDocument(summary)),
  };
}
