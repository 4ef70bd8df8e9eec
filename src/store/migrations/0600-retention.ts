import type { Migration } from '../migrate.js';

/**
 * Retention (docs/secrets-and-retention.md#retention) finds raw rows by age: an index on each table it prunes, so a pass
 * over a large store reads only what it removes.
 */
export const RETENTION_SCHEMA: Migration = {
  id: '0600_retention',
  up(db) {
    db.exec(`
      CREATE INDEX tool_events_created ON tool_events (created_at);
      CREATE INDEX session_prompts_created ON session_prompts (created_at);
      CREATE INDEX sessions_updated ON sessions (updated_at);
    `);
  },
};
