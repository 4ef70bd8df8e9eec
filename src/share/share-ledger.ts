import type Database from 'better-sqlite3';
import type { Cursor } from './remote-log.js';
import type { ShareFailure } from './failure.js';

/**
 * This machine's side of sharing, in memtrace.db (migration 1000_share): which projects are
 * shared and where each one's sync stands, the durable push queue the store's triggers fill, the
 * keys of what was pushed, and the ledger of what was pulled.
 */
export interface ShareProjectState {
  project: string;
  remoteProject: string;
  label: string;
  databaseDisplay: string;
  databaseId: string | null;
  addedAt: number;
  cursor: Cursor;
  pushed: number;
  pulled: number;
  withdrawn: number;
  removedByOwner: number;
  refused: number;
  /** Records and withdrawals waiting to be pushed. */
  pending: number;
  lastSyncAt: number | null;
  lastError: ShareFailure | null;
  failingSince: number | null;
}

export interface OutboxRow {
  seq: number;
  op: 'put' | 'withdraw';
  kind: 'observation' | 'summary';
  localId: number | null;
  uid: string;
}

export interface ShareProjectEntry {
  project: string;
  remoteProject: string;
  label: string;
  databaseDisplay: string;
  databaseId: string;
}

export interface SyncCounts {
  pushed?: number;
  pulled?: number;
  withdrawn?: number;
  removedByOwner?: number;
  refused?: number;
}

type Row = Record<string, unknown>;

function toState(r: Row): ShareProjectState {
  return {
    project: String(r.project),
    remoteProject: String(r.remote_project),
    label: String(r.label),
    databaseDisplay: String(r.database_display),
    databaseId: (r.database_id as string | null) ?? null,
    addedAt: Number(r.added_at),
    cursor: { xid: String(r.cursor_xid), seq: Number(r.cursor_seq) },
    pushed: Number(r.pushed),
    pulled: Number(r.pulled),
    withdrawn: Number(r.withdrawn),
    removedByOwner: Number(r.removed_by_owner),
    refused: Number(r.refused),
    pending: Number(r.pending ?? 0),
    lastSyncAt: (r.last_sync_at as number | null) ?? null,
    lastError: r.last_error_class ? { class: r.last_error_class as ShareFailure['class'], message: String(r.last_error ?? '') } : null,
    failingSince: (r.failing_since as number | null) ?? null,
  };
}

export type ShareLedger = ReturnType<typeof createShareLedger>;

export function createShareLedger(db: Database.Database) {
  const select = `SELECT p.*, (SELECT count(*) FROM share_outbox o WHERE o.project = p.project) AS pending FROM share_projects p`;
  const list = db.prepare(`${select} ORDER BY p.project`);
  const one = db.prepare(`${select} WHERE p.project = ?`);
  const machine = db.prepare("SELECT value FROM store_meta WHERE key = 'share_machine'");
  const upsert = db.prepare(`
    INSERT INTO share_projects (project, remote_project, label, database_display, database_id, added_at)
    VALUES (@project, @remoteProject, @label, @databaseDisplay, @databaseId, @nowMs)
    ON CONFLICT (project) DO UPDATE SET remote_project = excluded.remote_project, label = excluded.label,
      database_display = excluded.database_display, database_id = excluded.database_id,
      cursor_xid = CASE WHEN share_projects.database_id IS excluded.database_id AND share_projects.remote_project = excluded.remote_project THEN cursor_xid ELSE '0' END,
      cursor_seq = CASE WHEN share_projects.database_id IS excluded.database_id AND share_projects.remote_project = excluded.remote_project THEN cursor_seq ELSE 0 END`);
  // What this machine made in the project before it was shared, and has not pushed to this database.
  const backfill = (kind: 'observation' | 'summary', table: 'observations' | 'summaries') =>
    db.prepare(`
      INSERT INTO share_outbox (project, op, kind, local_id, uid, enqueued_at)
      SELECT t.project, 'put', '${kind}', t.id, lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-a' || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))), @nowMs
      FROM ${table} t
      WHERE t.project = @project AND t.origin IS NULL
        AND NOT EXISTS (SELECT 1 FROM share_published p WHERE p.kind = '${kind}' AND p.local_id = t.id AND p.database_id IS @databaseId)
        AND NOT EXISTS (SELECT 1 FROM share_outbox o WHERE o.op = 'put' AND o.kind = '${kind}' AND o.local_id = t.id)
      ORDER BY t.id`);
  const backfillObservations = backfill('observation', 'observations');
  const backfillSummaries = backfill('summary', 'summaries');
  const next = db.prepare('SELECT seq, op, kind, local_id, uid FROM share_outbox WHERE project = ? ORDER BY seq LIMIT ?');
  const dequeue = db.prepare('DELETE FROM share_outbox WHERE seq = ?');
  const publish = db.prepare(
    'INSERT INTO share_published (kind, local_id, uid, project, database_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, local_id) DO UPDATE SET uid = excluded.uid, database_id = excluded.database_id',
  );
  const bump = db.prepare(`
    UPDATE share_projects SET pushed = pushed + @pushed, pulled = pulled + @pulled, withdrawn = withdrawn + @withdrawn,
      removed_by_owner = removed_by_owner + @removedByOwner, refused = refused + @refused WHERE project = @project`);
  const cursorStmt = db.prepare('UPDATE share_projects SET cursor_xid = ?, cursor_seq = ? WHERE project = ?');
  const okStmt = db.prepare('UPDATE share_projects SET last_sync_at = ?, last_error = NULL, last_error_class = NULL, failing_since = NULL WHERE project = ?');
  const failStmt = db.prepare('UPDATE share_projects SET last_error = ?, last_error_class = ?, failing_since = coalesce(failing_since, ?) WHERE project = ?');
  const counts = (project: string, c: SyncCounts) =>
    bump.run({
      project,
      pushed: c.pushed ?? 0,
      pulled: c.pulled ?? 0,
      withdrawn: c.withdrawn ?? 0,
      removedByOwner: c.removedByOwner ?? 0,
      refused: c.refused ?? 0,
    });

  return {
    machineId: () => (machine.get() as { value: string }).value,
    list: () => (list.all() as Row[]).map(toState),
    get: (project: string) => {
      const r = one.get(project) as Row | undefined;
      return r ? toState(r) : null;
    },
    /** Shares a project (or updates how it is shared) and queues what it already holds; how many were queued. */
    add(entry: ShareProjectEntry, nowMs: number): number {
      return db
        .transaction(() => {
          upsert.run({ ...entry, nowMs });
          const params = { project: entry.project, databaseId: entry.databaseId, nowMs };
          return backfillObservations.run(params).changes + backfillSummaries.run(params).changes;
        })
        .immediate();
    },
    /** Stops sharing: the project's row and its queue go; what was published stays known (a re-add never pushes it twice). */
    remove(project: string, options: { forgetPublished: boolean }): void {
      db.transaction(() => {
        db.prepare('DELETE FROM share_outbox WHERE project = ?').run(project);
        if (options.forgetPublished) db.prepare('DELETE FROM share_published WHERE project = ?').run(project);
        db.prepare('DELETE FROM share_projects WHERE project = ?').run(project);
      }).immediate();
    },
    pendingWithdrawals: (project: string) =>
      (db.prepare("SELECT count(*) AS n FROM share_outbox WHERE project = ? AND op = 'withdraw'").get(project) as { n: number }).n,
    nextOutbox(project: string, limit: number): OutboxRow[] {
      return (next.all(project, limit) as Row[]).map((r) => ({
        seq: Number(r.seq),
        op: r.op as OutboxRow['op'],
        kind: r.kind as OutboxRow['kind'],
        localId: (r.local_id as number | null) ?? null,
        uid: String(r.uid),
      }));
    },
    /**
     * After the database committed a batch. A record forgotten while its push was on the wire has
     * lost its queue row already (and a withdrawal was queued for it): it is not marked published.
     */
    confirmPushed(project: string, rows: readonly OutboxRow[], databaseId: string | null, c: SyncCounts): void {
      db.transaction(() => {
        for (const row of rows) {
          const removed = dequeue.run(row.seq).changes === 1;
          if (removed && row.op === 'put' && row.localId !== null) publish.run(row.kind, row.localId, row.uid, project, databaseId);
        }
        counts(project, c);
      }).immediate();
    },
    /** Queue rows whose record is gone (or unreadable): dropped without a push. */
    drop(seqs: readonly number[]): void {
      db.transaction(() => {
        for (const seq of seqs) dequeue.run(seq);
      }).immediate();
    },
    count: (project: string, c: SyncCounts) => counts(project, c),
    setCursor: (project: string, cursor: Cursor) => cursorStmt.run(cursor.xid, cursor.seq, project),
    /** The database answering for the project is another one (recreated, restored, moved): its log is read from the start. */
    adoptDatabase: (project: string, databaseId: string) =>
      db
        .prepare("UPDATE share_projects SET database_id = ?, cursor_xid = '0', cursor_seq = 0 WHERE project = ? AND database_id IS NOT ?")
        .run(databaseId, project, databaseId).changes > 0,
    succeeded: (project: string, nowMs: number) => okStmt.run(nowMs, project),
    failed: (project: string, failure: ShareFailure, nowMs: number) => failStmt.run(failure.message, failure.class, nowMs, project),
  };
}
