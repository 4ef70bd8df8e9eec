import type { Migration } from '../migrate.js';

/**
 * What the hooks report about a session (its working directory, transcript, how it started and
 * ended) and every prompt of it, not only the first.
 */
export const SESSION_DETAILS_SCHEMA: Migration = {
  id: '0003_session_details',
  up(db) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN cwd TEXT;
      ALTER TABLE sessions ADD COLUMN transcript_path TEXT;
      ALTER TABLE sessions ADD COLUMN source TEXT;
      ALTER TABLE sessions ADD COLUMN end_reason TEXT;
      CREATE TABLE session_prompts (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        prompt_id TEXT,
        prompt TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      -- A prompt replayed from the spool after a timeout is the same prompt.
      CREATE UNIQUE INDEX session_prompts_once ON session_prompts (session_id, prompt_id) WHERE prompt_id IS NOT NULL;
      CREATE INDEX session_prompts_session ON session_prompts (session_id, id);
    `);
  },
};
