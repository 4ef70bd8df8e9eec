import type { Migration } from '../migrate.js';

/** A random RFC 4122 version-4 UUID, in SQL (for triggers). */
const UUID_V4 = `(lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' ||
  substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))))`;
const NOW_MS = `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`;

/** The triggers that keep a kind's push queue: what is added to a shared project, what is forgotten. */
function queueTriggers(kind: 'observation' | 'summary', table: 'observations' | 'summaries'): string {
  return `
    -- Made on this machine (origin NULL) in a shared project: queued for the database, its key drawn once.
    CREATE TRIGGER share_${kind}_added AFTER INSERT ON ${table}
    WHEN NEW.origin IS NULL AND NEW.project IN (SELECT project FROM share_projects)
    BEGIN
      INSERT INTO share_outbox (project, op, kind, local_id, uid, enqueued_at) VALUES (NEW.project, 'put', '${kind}', NEW.id, ${UUID_V4}, ${NOW_MS});
    END;
    -- Forgotten: what reached the database (or may be on its way there) is withdrawn; a pulled
    -- record's key stays in the ledger, pointing nowhere, so it is never pulled again.
    CREATE TRIGGER share_${kind}_forgotten AFTER DELETE ON ${table}
    BEGIN
      INSERT INTO share_outbox (project, op, kind, local_id, uid, enqueued_at)
        SELECT project, 'withdraw', kind, NULL, uid, ${NOW_MS} FROM share_published WHERE kind = '${kind}' AND local_id = OLD.id
        UNION ALL
        SELECT project, 'withdraw', kind, NULL, uid, ${NOW_MS} FROM share_outbox WHERE op = 'put' AND kind = '${kind}' AND local_id = OLD.id;
      DELETE FROM share_published WHERE kind = '${kind}' AND local_id = OLD.id;
      DELETE FROM share_outbox WHERE op = 'put' AND kind = '${kind}' AND local_id = OLD.id;
      UPDATE share_pulled SET local_id = NULL WHERE kind = '${kind}' AND local_id = OLD.id;
    END;`;
}

/**
 * Shared memory through Postgres (docs/sharing.md). `origin` marks a pulled observation or session
 * summary with the label of the member who made it (NULL: made here); pulled rows are never queued
 * for pushing. `share_projects` lists the shared projects and where their sync stands (the URL
 * itself lives in DATA_DIR/share.json, not here). `share_outbox` is the durable push queue, filled
 * by triggers in the same transaction as the row (so nothing stored is missed, whichever process
 * stored it); `share_published` maps a pushed row to its key in the database; `share_pulled` is
 * the ledger of every key pulled, kept after a forget so forgotten memory never comes back.
 */
export const SHARE_SCHEMA: Migration = {
  id: '1000_share',
  up(db) {
    db.exec(`
      ALTER TABLE observations ADD COLUMN origin TEXT;
      ALTER TABLE summaries ADD COLUMN origin TEXT;
      CREATE TABLE share_projects (
        project TEXT PRIMARY KEY,
        remote_project TEXT NOT NULL,
        label TEXT NOT NULL,
        -- The URL without its password (what share list shows); the URL is in DATA_DIR/share.json.
        database_display TEXT NOT NULL,
        -- memtrace.meta's database_id: a cursor is only valid in the database that gave it.
        database_id TEXT,
        added_at INTEGER NOT NULL,
        cursor_xid TEXT NOT NULL DEFAULT '0',
        cursor_seq INTEGER NOT NULL DEFAULT 0,
        pushed INTEGER NOT NULL DEFAULT 0,
        pulled INTEGER NOT NULL DEFAULT 0,
        withdrawn INTEGER NOT NULL DEFAULT 0,
        removed_by_owner INTEGER NOT NULL DEFAULT 0,
        refused INTEGER NOT NULL DEFAULT 0,
        last_sync_at INTEGER,
        last_error TEXT,
        last_error_class TEXT,
        failing_since INTEGER
      ) WITHOUT ROWID;
      CREATE TABLE share_outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        project TEXT NOT NULL,
        op TEXT NOT NULL CHECK (op IN ('put', 'withdraw')),
        kind TEXT NOT NULL CHECK (kind IN ('observation', 'summary')),
        local_id INTEGER,
        uid TEXT NOT NULL,
        enqueued_at INTEGER NOT NULL
      );
      CREATE INDEX share_outbox_project ON share_outbox (project, seq);
      CREATE INDEX share_outbox_record ON share_outbox (kind, local_id) WHERE op = 'put';
      CREATE TABLE share_published (
        kind TEXT NOT NULL,
        local_id INTEGER NOT NULL,
        uid TEXT NOT NULL,
        project TEXT NOT NULL,
        database_id TEXT,
        PRIMARY KEY (kind, local_id)
      ) WITHOUT ROWID;
      CREATE TABLE share_pulled (
        uid TEXT PRIMARY KEY,
        project TEXT NOT NULL,
        kind TEXT NOT NULL,
        local_id INTEGER,
        -- The Postgres role that pushed it: only the same role's withdrawal removes it here.
        owner TEXT NOT NULL,
        pulled_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX share_pulled_record ON share_pulled (kind, local_id) WHERE local_id IS NOT NULL;
      -- This data dir's key in shared databases: its own records are never pulled back.
      INSERT INTO store_meta (key, value) VALUES ('share_machine', ${UUID_V4}) ON CONFLICT (key) DO NOTHING;
      ${queueTriggers('observation', 'observations')}
      ${queueTriggers('summary', 'summaries')}
    `);
  },
};
