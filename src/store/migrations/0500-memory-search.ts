import type { Migration } from '../migrate.js';
import { toStoredObservation } from '../observations.js';
import { createSearchIndex, SEARCH_TABLE } from '../search-index.js';
import type { ParsedSummary } from '../../vocabulary/observation.js';

type SummaryRow = ParsedSummary & { id: number };

/**
 * Full-text search over memory (docs/memory.md#search): an FTS5 index of observations and session
 * summaries, built here for the rows an older memtrace wrote. Contentless (the text lives once,
 * in its table) with contentless_delete, so a row is removed by its rowid alone; porter stemming
 * over unicode61, so `parsing` finds `parsed`. No prefix indexes: queries only ask for prefixes of
 * four letters or more, which FTS5 reads from the term index as it is, and each prefix length
 * indexed would add an entry per token to every insert. `secure-delete` makes FTS5 remove a deleted row's
 * entries from the index pages instead of leaving them until a merge (`memtrace forget`).
 */
export const MEMORY_SEARCH_SCHEMA: Migration = {
  id: '0500_memory_search',
  up(db) {
    db.exec(`
      CREATE VIRTUAL TABLE ${SEARCH_TABLE} USING fts5(
        title, subtitle, narrative, facts, concepts, files, terms,
        content = '', contentless_delete = 1,
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      INSERT INTO ${SEARCH_TABLE} (${SEARCH_TABLE}, rank) VALUES ('secure-delete', 1);
      CREATE TRIGGER observations_search_delete AFTER DELETE ON observations BEGIN
        DELETE FROM ${SEARCH_TABLE} WHERE rowid = old.id;
      END;
      CREATE TRIGGER summaries_search_delete AFTER DELETE ON summaries BEGIN
        DELETE FROM ${SEARCH_TABLE} WHERE rowid = -old.id;
      END;
      -- Timelines and the viewer read a project's or a session's memory in time order.
      CREATE INDEX summaries_session ON summaries (session_id, created_at);
      CREATE INDEX observations_recent ON observations (created_at DESC, id DESC);
    `);
    // In id-ordered chunks: a connection cannot write while it iterates, and a large store need not fit in memory.
    const index = createSearchIndex(db);
    const observations = db.prepare('SELECT * FROM observations WHERE id > ? ORDER BY id LIMIT 1000');
    for (
      let rows = observations.all(0) as Array<Record<string, unknown>>;
      rows.length > 0;
      rows = observations.all(rows.at(-1)!.id) as Array<Record<string, unknown>>
    ) {
      for (const row of rows) index.addObservation(row.id as number, toStoredObservation(row));
    }
    const summaries = db.prepare('SELECT id, request, investigated, learned, completed, next_steps, notes FROM summaries WHERE id > ? ORDER BY id LIMIT 1000');
    for (let rows = summaries.all(0) as SummaryRow[]; rows.length > 0; rows = summaries.all(rows.at(-1)!.id) as SummaryRow[]) {
      for (const row of rows) index.addSummary(row.id, row);
    }
  },
};
