import Database from 'better-sqlite3';

/**
 * lossless-claw's tables, as its own migration creates them: written for this fixture from
 * Martian-Engineering/lossless-claw src/db/migration.ts (runLcmMigrations at 4214b480) —
 * the same columns, CHECKs, foreign keys (CASCADE / RESTRICT), unique keys and indexes, the
 * `model` column its ensureSummaryModelColumn adds, and the standalone FTS5 tables over summary
 * content (summaries_fts, and summaries_fts_cjk where the trigram tokenizer exists). Tables repair never reads (message_parts, large_files, bootstrap and telemetry state,
 * focus briefs) are left out. lossless-claw opens the file with node:sqlite, WAL and
 * foreign_keys = ON; the file format is the same under better-sqlite3.
 */
const LCM_DDL = `
  CREATE TABLE conversations (
    conversation_id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    session_key TEXT,
    active INTEGER NOT NULL DEFAULT 1,
    archived_at TEXT,
    archive_cause TEXT,
    title TEXT,
    bootstrapped_at TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    updated_at TEXT NOT NULL DEFAULT (datetime('now'))
  );
  CREATE TABLE messages (
    message_id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id INTEGER NOT NULL REFERENCES conversations(conversation_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    identity_hash TEXT,
    openclaw_sender_metadata TEXT,
    transcript_entry_id TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    UNIQUE (conversation_id, seq)
  );
  CREATE TABLE summaries (
    summary_id TEXT PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations(conversation_id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('leaf', 'condensed')),
    depth INTEGER NOT NULL DEFAULT 0,
    content TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    earliest_at TEXT,
    latest_at TEXT,
    descendant_count INTEGER NOT NULL DEFAULT 0,
    descendant_token_count INTEGER NOT NULL DEFAULT 0,
    source_message_token_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    file_ids TEXT NOT NULL DEFAULT '[]'
  );
  ALTER TABLE summaries ADD COLUMN model TEXT NOT NULL DEFAULT 'unknown';
  CREATE TABLE summary_messages (
    summary_id TEXT NOT NULL REFERENCES summaries(summary_id) ON DELETE CASCADE,
    message_id INTEGER NOT NULL REFERENCES messages(message_id) ON DELETE RESTRICT,
    ordinal INTEGER NOT NULL,
    PRIMARY KEY (summary_id, message_id)
  );
  CREATE TABLE summary_parents (
    summary_id TEXT NOT NULL REFERENCES summaries(summary_id) ON DELETE CASCADE,
    parent_summary_id TEXT NOT NULL REFERENCES summaries(summary_id) ON DELETE RESTRICT,
    ordinal INTEGER NOT NULL,
    PRIMARY KEY (summary_id, parent_summary_id)
  );
  CREATE TABLE context_items (
    conversation_id INTEGER NOT NULL REFERENCES conversations(conversation_id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    item_type TEXT NOT NULL CHECK (item_type IN ('message', 'summary')),
    message_id INTEGER REFERENCES messages(message_id) ON DELETE RESTRICT,
    summary_id TEXT REFERENCES summaries(summary_id) ON DELETE RESTRICT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (conversation_id, ordinal),
    CHECK (
      (item_type = 'message' AND message_id IS NOT NULL AND summary_id IS NULL) OR
      (item_type = 'summary' AND summary_id IS NOT NULL AND message_id IS NULL)
    )
  );
  CREATE UNIQUE INDEX conversations_active_session_key_idx ON conversations (session_key) WHERE session_key IS NOT NULL AND active = 1;
  CREATE INDEX messages_conv_seq_idx ON messages (conversation_id, seq);
  CREATE INDEX summaries_conv_created_idx ON summaries (conversation_id, created_at);
  CREATE INDEX summary_messages_message_idx ON summary_messages (message_id);
  CREATE INDEX summary_parents_parent_summary_idx ON summary_parents (parent_summary_id);
  CREATE INDEX context_items_conv_idx ON context_items (conversation_id, ordinal);
  CREATE INDEX summaries_conv_depth_kind_idx ON summaries (conversation_id, depth, kind);
  CREATE VIRTUAL TABLE messages_fts USING fts5(content, tokenize='porter unicode61');
  CREATE VIRTUAL TABLE summaries_fts USING fts5(summary_id UNINDEXED, content, tokenize='porter unicode61');
  CREATE VIRTUAL TABLE summaries_fts_cjk USING fts5(summary_id UNINDEXED, content, tokenize='trigram');
`;

export function createLcmDatabase(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(LCM_DDL);
  return db;
}

/**
 * lossless-claw's aggregate rules, recomputed from scratch: leaf from its messages; condensed
 * descendant_count = Σ(child.descendant_count + 1), descendant_token_count =
 * Σ(child.token_count + child.descendant_token_count), source_message_token_count = Σ child's.
 */
export function expectedAggregates(
  db: Database.Database,
): Map<string, { descendant_count: number; descendant_token_count: number; source_message_token_count: number }> {
  const rows = db.prepare('SELECT summary_id, kind, token_count FROM summaries ORDER BY depth').all() as Array<{
    summary_id: string;
    kind: string;
    token_count: number;
  }>;
  const out = new Map<string, { descendant_count: number; descendant_token_count: number; source_message_token_count: number }>();
  const tokens = new Map(rows.map((r) => [r.summary_id, r.token_count]));
  for (const r of rows) {
    if (r.kind === 'leaf') {
      const sum = (
        db
          .prepare('SELECT coalesce(sum(m.token_count), 0) AS t FROM summary_messages sm JOIN messages m USING (message_id) WHERE sm.summary_id = ?')
          .get(r.summary_id) as { t: number }
      ).t;
      out.set(r.summary_id, { descendant_count: 0, descendant_token_count: 0, source_message_token_count: sum });
      continue;
    }
    const children = (db.prepare('SELECT parent_summary_id AS id FROM summary_parents WHERE summary_id = ?').all(r.summary_id) as Array<{ id: string }>).map(
      (c) => c.id,
    );
    const agg = { descendant_count: 0, descendant_token_count: 0, source_message_token_count: 0 };
    for (const c of children) {
      const child = out.get(c)!;
      agg.descendant_count += child.descendant_count + 1;
      agg.descendant_token_count += tokens.get(c)! + child.descendant_token_count;
      agg.source_message_token_count += child.source_message_token_count;
    }
    out.set(r.summary_id, agg);
  }
  return out;
}
