import type Database from 'better-sqlite3';
import type { ParsedSummary } from '../vocabulary/observation.js';
import { toStoredObservation } from './observations.js';
import { createSearchIndex } from './search-index.js';

/**
 * Indexes every stored observation and summary (an index made anew by a schema step), in
 * id-ordered chunks: a connection cannot write while it iterates, and a large store need not fit
 * in memory.
 */
export function reindexEverything(db: Database.Database): void {
  const index = createSearchIndex(db);
  const observations = db.prepare('SELECT * FROM observations WHERE id > ? ORDER BY id LIMIT 1000');
  for (let rows = observations.all(0) as Array<Record<string, unknown>>; rows.length > 0; rows = observations.all(rows.at(-1)!.id) as typeof rows) {
    for (const row of rows) index.addObservation(row.id as number, toStoredObservation(row));
  }
  const summaries = db.prepare('SELECT id, request, investigated, learned, completed, next_steps, notes FROM summaries WHERE id > ? ORDER BY id LIMIT 1000');
  for (let rows = summaries.all(0) as Array<ParsedSummary & { id: number }>; rows.length > 0; rows = summaries.all(rows.at(-1)!.id) as typeof rows) {
    for (const row of rows) index.addSummary(row.id, row);
  }
}
