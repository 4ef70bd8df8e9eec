import type { Migration } from '../migrate.js';

/**
 * One observer call per agent turn: each queued event's size in UTF-8 bytes as the observer will see it (after
 * the per-event cuts, docs/observer.md#what-each-event-contributes), computed once when it is
 * queued, so closing a batch by size reads a column instead of parsing every payload again.
 * NULL for rows queued before this step (their stored size stands in).
 */
export const OBSERVER_BATCHES_SCHEMA: Migration = {
  id: '0800_observer_batches',
  up(db) {
    db.exec('ALTER TABLE queue ADD COLUMN observer_bytes INTEGER;');
  },
};
