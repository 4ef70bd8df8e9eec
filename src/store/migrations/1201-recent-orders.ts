import type { Migration } from '../migrate.js';

/**
 * The viewer's first page reads the newest session summaries of every project and the newest
 * sessions: without these indexes each was a scan of the whole table and a sort (50,000 rows
 * apiece at a million observations). Observations have had theirs since step 0500.
 */
export const RECENT_ORDERS_SCHEMA: Migration = {
  id: '1201_recent_orders',
  up(db) {
    db.exec(`
      CREATE INDEX summaries_recent ON summaries (created_at DESC, id DESC);
      CREATE INDEX sessions_recent ON sessions (created_at DESC);
    `);
  },
};
