import type { Migration } from '../migrate.js';

/**
 * Every observer call's spend (docs/observer.md#spend): reserved before the call from its token
 * bound, settled after it with the usage the provider reported. A call still `reserved` after a
 * crash counts at its reservation: the daily budget never forgets a call that may have spent.
 */
export const OBSERVER_SPEND_SCHEMA: Migration = {
  id: '0810_observer_spend',
  up(db) {
    db.exec(`
      CREATE TABLE observer_calls (
        id INTEGER PRIMARY KEY,
        -- The UTC day the call started (YYYY-MM-DD): the budget's day.
        day TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        session_id TEXT,
        purpose TEXT NOT NULL CHECK (purpose IN ('observe', 'compact')),
        provider TEXT NOT NULL,
        model TEXT,
        events INTEGER NOT NULL DEFAULT 0,
        reserved_tokens INTEGER NOT NULL,
        tokens_in INTEGER,
        tokens_out INTEGER,
        cost_usd REAL,
        cost_estimated INTEGER NOT NULL DEFAULT 0,
        outcome TEXT NOT NULL CHECK (outcome IN ('reserved', 'ok', 'failed', 'unknown')),
        duration_ms INTEGER
      );
      CREATE INDEX observer_calls_day ON observer_calls (day);
      CREATE INDEX observer_calls_session ON observer_calls (session_id, day);
    `);
  },
};
