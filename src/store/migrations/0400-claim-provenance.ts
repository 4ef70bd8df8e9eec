import type { Migration } from '../migrate.js';

/**
 * What verify-before-persist needs and shows: every tool event's identity and the files it wrote
 * or read (kept after its queue row is confirmed and deleted), and each stored observation's and
 * summary's claims with their verification result.
 */
export const CLAIM_PROVENANCE_SCHEMA: Migration = {
  id: '0400_claim_provenance',
  up(db) {
    db.exec(`
      CREATE TABLE tool_events (
        queue_id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        tool_use_id TEXT,
        tool_name TEXT NOT NULL,
        input_preview TEXT NOT NULL,
        failed INTEGER NOT NULL DEFAULT 0,
        files_written TEXT NOT NULL DEFAULT '[]',
        files_read TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL
      );
      CREATE INDEX tool_events_session ON tool_events (session_id, queue_id);
      -- Every file a session's tool events wrote, normalised: one indexed lookup per claimed file.
      CREATE TABLE session_files_written (
        session_id TEXT NOT NULL,
        path TEXT NOT NULL,
        PRIMARY KEY (session_id, path)
      ) WITHOUT ROWID;
      ALTER TABLE observations ADD COLUMN claims TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE summaries ADD COLUMN claims TEXT NOT NULL DEFAULT '[]';
    `);
  },
};
