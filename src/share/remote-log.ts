import type pg from 'pg';
import { NOTIFY_CHANNEL } from './remote-schema.js';

/**
 * The shared log's reads and writes (SQL stays here). Delivery is exactly-once under concurrent
 * pushers because a pull never reads a row whose transaction might still be running: each row
 * carries the id of the transaction that wrote it, and a pull reads, in (xid, seq) order after its
 * cursor, only rows whose xid is below the oldest transaction still running when the pull's
 * snapshot was taken (pg_snapshot_xmin). Such a transaction has finished, and every transaction
 * that writes later gets a larger id, so no row can later appear behind the cursor — the trap of
 * "everything above the last sequence number seen", which skips a row whose sequence number was
 * drawn before a neighbour's but committed after it.
 */
export interface OutgoingRecord {
  uid: string;
  kind: 'observation' | 'summary';
  session: string;
  createdAtMs: number;
  /** JSON text of the record's body (crossing.ts). */
  body: string;
}

export interface PushBatch {
  project: string;
  machine: string;
  label: string;
  records: OutgoingRecord[];
  withdrawals: string[];
}

export interface PushResult {
  /** Rows the database did not hold yet (a retried batch adds none). */
  inserted: number;
  withdrawn: number;
}

/** One transaction: records added (a key already there is skipped), withdrawals made, members woken. */
export async function pushBatch(client: pg.Client, batch: PushBatch): Promise<PushResult> {
  await client.query('BEGIN');
  try {
    let inserted = 0;
    if (batch.records.length > 0) {
      const r = batch.records;
      const result = await client.query(
        `INSERT INTO memtrace.records (uid, project, kind, machine, label, session, created_at, body)
         SELECT u, $1, k, $2::uuid, $3, s, to_timestamp(c / 1000.0), b::jsonb
         FROM unnest($4::uuid[], $5::text[], $6::text[], $7::float8[], $8::text[]) AS t(u, k, s, c, b)
         ON CONFLICT (uid) DO NOTHING`,
        [
          batch.project,
          batch.machine,
          batch.label,
          r.map((x) => x.uid),
          r.map((x) => x.kind),
          r.map((x) => x.session),
          r.map((x) => x.createdAtMs),
          r.map((x) => x.body),
        ],
      );
      inserted = result.rowCount ?? 0;
    }
    let withdrawn = 0;
    if (batch.withdrawals.length > 0) {
      // Row-level security lets a role delete only its own rows; the tombstone keeps the key.
      const gone = await client.query("DELETE FROM memtrace.records WHERE uid = ANY($1::uuid[]) AND kind <> 'withdrawn'", [batch.withdrawals]);
      withdrawn = gone.rowCount ?? 0;
      await insertTombstones(client, batch.project, batch.machine, batch.label, batch.withdrawals);
    }
    if (inserted + withdrawn > 0) await client.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, batch.project]);
    await client.query('COMMIT');
    return { inserted, withdrawn };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

async function insertTombstones(client: pg.Client, project: string, machine: string, label: string, uids: string[]): Promise<void> {
  await client.query(
    `INSERT INTO memtrace.records (uid, project, kind, machine, label, session, created_at, body)
     SELECT u, $1, 'withdrawn', $2::uuid, $3, '', clock_timestamp(), '{}'::jsonb FROM unnest($4::uuid[]) AS t(u)
     ON CONFLICT (uid) DO NOTHING`,
    [project, machine, label, uids],
  );
}

/** Withdraws every record this machine pushed to a project, in batches; how many. */
export async function withdrawMachine(client: pg.Client, project: string, machine: string, label: string, batchSize = 2_000): Promise<number> {
  let total = 0;
  for (;;) {
    await client.query('BEGIN');
    try {
      const gone = await client.query<{ uid: string }>(
        `DELETE FROM memtrace.records WHERE seq IN (
           SELECT seq FROM memtrace.records WHERE project = $1 AND machine = $2::uuid AND kind <> 'withdrawn' LIMIT $3)
         RETURNING uid::text`,
        [project, machine, batchSize],
      );
      if (gone.rows.length > 0) {
        await insertTombstones(
          client,
          project,
          machine,
          label,
          gone.rows.map((r) => r.uid),
        );
        await client.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, project]);
      }
      await client.query('COMMIT');
      total += gone.rows.length;
      if (gone.rows.length < batchSize) return total;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }
}

export interface Cursor {
  /** xid8 as decimal text (64 bits). */
  xid: string;
  seq: number;
}

export interface IncomingRow {
  xid: string;
  seq: number;
  uid: string;
  kind: string;
  owner: string;
  machine: string;
  label: string;
  session: string;
  createdAtMs: number;
  /** Milliseconds from the push's commit to this read, on the server's clock. */
  lagMs: number;
  body: unknown;
}

const FINISHED = 'xid < pg_snapshot_xmin(pg_current_snapshot())';

/** The next rows of a project after the cursor, among those whose transactions have finished. */
export async function pullBatch(client: pg.Client, project: string, after: Cursor, limit: number): Promise<IncomingRow[]> {
  const result = await client.query<Record<string, unknown>>(
    // Output names differ from the columns: ORDER BY a name that is also an output column sorts by
    // the output (text, where '1000' < '999'), which would break the log's order.
    `SELECT xid::text AS xid_text, seq::text AS seq_text, uid::text AS uid, kind, owner::text AS owner, machine::text AS machine, label, session,
       (extract(epoch FROM created_at) * 1000)::bigint::text AS created_ms,
       (extract(epoch FROM clock_timestamp() - pushed_at) * 1000)::bigint::text AS lag_ms,
       body
     FROM memtrace.records
     WHERE project = $1 AND (xid, seq) > ($2::xid8, $3::bigint) AND ${FINISHED}
     ORDER BY records.xid, records.seq LIMIT $4`,
    [project, after.xid, after.seq, limit],
  );
  return result.rows.map((r) => ({
    xid: String(r.xid_text),
    seq: Number(r.seq_text),
    uid: String(r.uid),
    kind: String(r.kind),
    owner: String(r.owner),
    machine: String(r.machine),
    label: String(r.label),
    session: String(r.session),
    createdAtMs: Number(r.created_ms),
    lagMs: Math.max(0, Number(r.lag_ms)),
    body: r.body,
  }));
}

/** How many rows a pull would read now (the progress bar's total). */
export async function countAfter(client: pg.Client, project: string, after: Cursor): Promise<number> {
  const result = await client.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM memtrace.records WHERE project = $1 AND (xid, seq) > ($2::xid8, $3::bigint) AND ${FINISHED}`,
    [project, after.xid, after.seq],
  );
  return Number(result.rows[0]?.n ?? 0);
}
