import type { Migration } from '../migrate.js';

/**
 * Transcript mining (docs/interfaces.md#segments-and-dedup-keys): which segments of which Claude Code transcripts were mined,
 * the per-file scan cache, and session-level mining state.
 */
export const MINING_SCHEMA: Migration = {
  id: '0300_mining',
  up(db) {
    db.exec(`
      -- Dedup keys: '_mined-transcripts#f-{session}.{N}' per segment; a legacy whole-file key
      -- ('_mined-transcripts#f-{session}', segment NULL) is migrated to segment keys once and removed.
      CREATE TABLE mined_transcript_keys (
        key TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        segment INTEGER,
        -- Byte offset in the file up to which the segment was mined (a still-open last segment grows).
        end_offset INTEGER,
        events_queued INTEGER NOT NULL DEFAULT 0,
        mined_at INTEGER NOT NULL
      );
      CREATE INDEX mined_transcript_keys_session ON mined_transcript_keys (session_id, segment);
      -- The segment cache, keyed by path: an unchanged file (same size and mtime) is not read again.
      CREATE TABLE mined_transcript_files (
        path TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        -- JSON {starts, boundaries}: where each segment starts (the last is still open) and every
        -- compact_boundary seen as [offset, uuid].
        segments TEXT NOT NULL,
        -- End of the last complete line scanned; scanning resumes from the open segment.
        scanned_to INTEGER NOT NULL,
        last_segment_has_content INTEGER NOT NULL,
        complete INTEGER NOT NULL,
        checked_at INTEGER NOT NULL
      );
      -- Session-level mining (the summary request): when it last ran, and what mining recovered since.
      CREATE TABLE mined_transcript_sessions (
        session_id TEXT PRIMARY KEY,
        summarized_segments INTEGER NOT NULL DEFAULT 0,
        recovered_since_summary INTEGER NOT NULL DEFAULT 0,
        summarized_at INTEGER
      );
    `);
  },
};
