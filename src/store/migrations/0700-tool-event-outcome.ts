import type { Migration } from '../migrate.js';

/**
 * How each tool call ended, kept with its provenance: a failure's error and exit code (hosts
 * without a failure event get them derived, docs/hosts.md#events) and the size of the payload the queue
 * stored (a large output is stored shortened), so `memtrace show` can say so after the queue
 * row is gone.
 */
export const TOOL_EVENT_OUTCOME_SCHEMA: Migration = {
  id: '0700_tool_event_outcome',
  up(db) {
    db.exec(`
      ALTER TABLE tool_events ADD COLUMN error TEXT;
      ALTER TABLE tool_events ADD COLUMN exit_code INTEGER;
      ALTER TABLE tool_events ADD COLUMN payload_chars INTEGER;
    `);
  },
};
