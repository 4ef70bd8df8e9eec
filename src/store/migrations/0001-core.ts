import type { Migration } from '../migrate.js';

export const CORE_SCHEMA: Migration = {
  id: '0001_core',
  up(db) {
    db.exec(`
      CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        project TEXT,
        prompt TEXT,
        platform TEXT,
        status TEXT NOT NULL CHECK (status IN ('active', 'ended')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        ended_at INTEGER
      );
      CREATE TABLE queue (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('observation', 'summary')),
        tool_use_id TEXT,
        payload TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'claimed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        not_before INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        claimed_at INTEGER
      );
      CREATE INDEX queue_due ON queue (status, session_id, not_before, id);
      -- Dedup outlives the queue row: a tool_use_id seen once is a duplicate forever.
      CREATE TABLE queue_seen (
        session_id TEXT NOT NULL,
        tool_use_id TEXT NOT NULL,
        queue_id INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, tool_use_id)
      ) WITHOUT ROWID;
      CREATE TABLE observations (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        project TEXT,
        type TEXT NOT NULL,
        title TEXT NOT NULL,
        subtitle TEXT NOT NULL,
        narrative TEXT NOT NULL,
        facts TEXT NOT NULL,
        concepts TEXT NOT NULL,
        files_read TEXT NOT NULL,
        files_modified TEXT NOT NULL,
        source_message_ids TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT,
        prompt_version TEXT NOT NULL,
        -- This observation's share of its turn's input+output tokens; NULL when unknown.
        discovery_tokens REAL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX observations_project_recent ON observations (project, created_at DESC, id DESC);
      CREATE INDEX observations_session ON observations (session_id, id);
      CREATE TABLE summaries (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        project TEXT,
        request TEXT NOT NULL,
        investigated TEXT NOT NULL,
        learned TEXT NOT NULL,
        completed TEXT NOT NULL,
        next_steps TEXT NOT NULL,
        notes TEXT NOT NULL,
        source_message_ids TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT,
        prompt_version TEXT NOT NULL,
        -- Room for compaction (docs/interfaces.md#summary-dag): 'fallback' marks only legacy truncation rows.
        level TEXT NOT NULL DEFAULT 'normal' CHECK (level IN ('normal', 'aggressive', 'fallback')),
        created_at INTEGER NOT NULL
      );
      CREATE INDEX summaries_project_recent ON summaries (project, created_at DESC);
    `);
  },
};
