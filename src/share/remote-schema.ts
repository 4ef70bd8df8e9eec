import type pg from 'pg';
import { RemoteSchemaError } from './failure.js';

/**
 * memtrace's tables in a shared database (docs/sharing.md#what-the-database-holds-and-what-it-guarantees), created by the
 * first member's `share add`, joined by every later one. Versioned (memtrace.meta holds
 * schema_version) and idempotent: creation runs under a transaction-scoped advisory lock, so two
 * machines adding at once create them once. A database written by a newer memtrace is refused.
 *
 * One append-only log, `memtrace.records`: every record and every withdrawal (a tombstone that
 * keeps the withdrawn record's key, so a late retry of its push cannot bring it back). A BEFORE
 * INSERT trigger stamps each row with the transaction id that wrote it (pg_current_xact_id), the
 * role that pushed it and the time; row-level security, forced on the table's owner too, lets
 * every member read every row, add rows only as itself and delete only its own. There is no
 * UPDATE policy: nobody changes a row.
 */
const REMOTE_SCHEMA_VERSION = 1;
export const NOTIFY_CHANNEL = 'memtrace_share';

const CREATE_V1 = `
  CREATE SCHEMA IF NOT EXISTS memtrace;
  CREATE TABLE memtrace.meta (key text PRIMARY KEY, value text NOT NULL);
  CREATE TABLE memtrace.records (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    uid uuid NOT NULL UNIQUE,
    project text NOT NULL CHECK (octet_length(project) BETWEEN 1 AND 1024),
    kind text NOT NULL CHECK (kind IN ('observation', 'summary', 'withdrawn')),
    owner name NOT NULL DEFAULT current_user,
    machine uuid NOT NULL,
    label text NOT NULL CHECK (octet_length(label) <= 256),
    session text NOT NULL CHECK (octet_length(session) <= 128),
    created_at timestamptz NOT NULL,
    pushed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    body jsonb NOT NULL CHECK (pg_column_size(body) <= 8388608)
  );
  CREATE INDEX records_pull ON memtrace.records (project, xid, seq);
  CREATE INDEX records_machine ON memtrace.records (project, machine, seq);
  CREATE FUNCTION memtrace.stamp() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog AS $$
  BEGIN
    NEW.xid := pg_current_xact_id();
    NEW.owner := current_user;
    NEW.pushed_at := clock_timestamp();
    RETURN NEW;
  END $$;
  CREATE TRIGGER stamp BEFORE INSERT ON memtrace.records FOR EACH ROW EXECUTE FUNCTION memtrace.stamp();
  ALTER TABLE memtrace.records ENABLE ROW LEVEL SECURITY;
  ALTER TABLE memtrace.records FORCE ROW LEVEL SECURITY;
  CREATE POLICY members_read ON memtrace.records FOR SELECT USING (true);
  CREATE POLICY members_add_own ON memtrace.records FOR INSERT WITH CHECK (owner = current_user);
  CREATE POLICY members_withdraw_own ON memtrace.records FOR DELETE USING (owner = current_user);
  REVOKE ALL ON memtrace.records, memtrace.meta FROM PUBLIC;
  GRANT USAGE ON SCHEMA memtrace TO PUBLIC;
  GRANT SELECT ON memtrace.meta TO PUBLIC;
  GRANT SELECT, INSERT, DELETE ON memtrace.records TO PUBLIC;
  INSERT INTO memtrace.meta (key, value) VALUES ('schema_version', '1'), ('database_id', gen_random_uuid()::text);
`;

export interface RemoteSchema {
  /** memtrace.meta's random id of this database: a pull cursor is only valid where it was taken. */
  databaseId: string;
  created: boolean;
}

/** Creates memtrace's tables on first use, or checks the ones there. Throws RemoteSchemaError, or pg's error (a role that may not create them). */
export async function ensureRemoteSchema(client: pg.Client): Promise<RemoteSchema> {
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('memtrace shared memory schema'))");
    const found = await client.query<{ meta: string | null; schema: string | null }>(
      "SELECT to_regclass('memtrace.meta')::text AS meta, (SELECT nspname::text FROM pg_namespace WHERE nspname = 'memtrace') AS schema",
    );
    const { meta, schema } = found.rows[0]!;
    let created = false;
    if (meta === null) {
      if (schema !== null) {
        const other = await client.query("SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'memtrace' LIMIT 1");
        if (other.rowCount !== 0) throw new RemoteSchemaError('the database has a schema named memtrace that memtrace did not create; nothing was changed');
      }
      await client.query(CREATE_V1);
      created = true;
    }
    const rows = await client.query<{ key: string; value: string }>("SELECT key, value FROM memtrace.meta WHERE key IN ('schema_version', 'database_id')");
    const value = (key: string) => rows.rows.find((r) => r.key === key)?.value ?? null;
    const version = Number(value('schema_version'));
    const databaseId = value('database_id');
    if (!Number.isInteger(version) || databaseId === null)
      throw new RemoteSchemaError("memtrace.meta in the database is not memtrace's (no schema_version or database_id)");
    if (version > REMOTE_SCHEMA_VERSION)
      throw new RemoteSchemaError(
        `the database's memtrace tables are schema ${version}, written by a newer memtrace (this one knows ${REMOTE_SCHEMA_VERSION}); upgrade memtrace here`,
      );
    await client.query('COMMIT');
    return { databaseId, created };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
