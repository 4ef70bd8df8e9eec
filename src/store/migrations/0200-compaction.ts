import type { Migration } from '../migrate.js';

/**
 * The summary DAG of compacted memory (docs/interfaces.md#summary-dag, docs/compaction.md). Separate from `summaries`
 * (the observer's session summaries): these rows condense a project's oldest observations (leaf)
 * or runs of same-depth summaries (condensed).
 */
export const COMPACTION_SCHEMA: Migration = {
  id: '0200_compaction',
  up(db) {
    db.exec(`
      CREATE TABLE memory_summaries (
        id INTEGER PRIMARY KEY,
        project TEXT,
        kind TEXT NOT NULL CHECK (kind IN ('leaf', 'condensed')),
        depth INTEGER NOT NULL CHECK (depth >= 0),
        -- 'fallback' only for imported legacy rows: memtrace never writes a truncation summary.
        level TEXT NOT NULL CHECK (level IN ('normal', 'aggressive', 'fallback')),
        content TEXT NOT NULL,
        token_count INTEGER NOT NULL CHECK (token_count >= 0),
        -- Tokens of the direct inputs as fed to the summarizer (observations or source summaries).
        source_token_count INTEGER NOT NULL CHECK (source_token_count >= 0),
        -- The contiguous run of the project's observations (by id) this summary covers.
        first_observation_id INTEGER NOT NULL,
        last_observation_id INTEGER NOT NULL,
        observation_count INTEGER NOT NULL,
        earliest_at INTEGER NOT NULL,
        latest_at INTEGER NOT NULL,
        provider TEXT,
        model TEXT,
        prompt_version TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        -- The condensed summary this one was folded into (the inverse of summary_sources, kept in
        -- the same transaction) so the frontier is one indexed read; NULL while it is on top.
        condensed_into INTEGER REFERENCES memory_summaries (id),
        CHECK ((kind = 'leaf') = (depth = 0))
      );
      CREATE INDEX memory_summaries_frontier ON memory_summaries (project, last_observation_id) WHERE condensed_into IS NULL;
      CREATE INDEX memory_summaries_leaf_reach ON memory_summaries (project, kind, last_observation_id);
      -- Lineage, named by direction: summary_id was made from these sources, in ordinal order.
      CREATE TABLE summary_sources (
        summary_id INTEGER NOT NULL REFERENCES memory_summaries (id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        observation_id INTEGER REFERENCES observations (id),
        source_summary_id INTEGER REFERENCES memory_summaries (id),
        PRIMARY KEY (summary_id, ordinal),
        CHECK ((observation_id IS NULL) <> (source_summary_id IS NULL))
      ) WITHOUT ROWID;
      CREATE INDEX summary_sources_observation ON summary_sources (observation_id) WHERE observation_id IS NOT NULL;
      CREATE INDEX summary_sources_summary ON summary_sources (source_summary_id) WHERE source_summary_id IS NOT NULL;
      -- Per-project scheduling state, durable so a retry delay survives a restart.
      CREATE TABLE compaction_state (
        project_key TEXT PRIMARY KEY,
        project TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0,
        last_failure TEXT,
        -- auth: wait until an observation newer than this id shows the provider works again.
        wait_for_observation_above INTEGER,
        -- nothing left to compact: idle until the project has an observation newer than this id.
        idle_through_observation_id INTEGER,
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      -- Leaf runs read a project's observations in id order.
      CREATE INDEX observations_project_id ON observations (project, id);
    `);
  },
};
