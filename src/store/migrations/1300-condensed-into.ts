import type { Migration } from '../migrate.js';

/**
 * memory_summaries.condensed_into references memory_summaries (step 0200) with no index, so every
 * deleted compacted summary made SQLite's foreign-key check read the whole table for rows pointing
 * at it: `forget` of 491 compacted summaries at a million observations held the write lock 45–300 ms
 * per summary (about 60,000 rows, their text inline, each time).
 */
export const CONDENSED_INTO_SCHEMA: Migration = {
  id: '1300_condensed_into',
  up(db) {
    db.exec('CREATE INDEX memory_summaries_condensed_into ON memory_summaries (condensed_into)');
  },
};
