import type { Migration } from '../migrate.js';

/** Telemetry's durable state: open rollup accumulators, the outbox, small key-value state. */
export const TELEMETRY_SCHEMA: Migration = {
  id: '0100_telemetry',
  up(db) {
    db.exec(`
      -- Open rollup accumulators; state NULL means closed, window_seq is the next sequence.
      CREATE TABLE telemetry_accumulators (
        key TEXT PRIMARY KEY,
        event TEXT NOT NULL,
        state TEXT,
        window_seq INTEGER NOT NULL DEFAULT 0,
        opened_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      -- Scrubbed events waiting for delivery, with their deterministic uuid.
      CREATE TABLE telemetry_outbox (
        uuid TEXT PRIMARY KEY,
        event TEXT NOT NULL,
        properties TEXT NOT NULL,
        timestamp INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX telemetry_outbox_due ON telemetry_outbox (next_attempt_at, created_at);
      CREATE TABLE telemetry_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `);
  },
};
