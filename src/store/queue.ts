import type Database from 'better-sqlite3';
import type { QueuedEvent } from '../hosts/hook-event.js';

export type MessageKind = 'observation' | 'summary';

export interface QueueMessage {
  id: number;
  sessionId: string;
  kind: MessageKind;
  toolUseId: string | null;
  payload: QueuedEvent;
  attempts: number;
  createdAt: number;
}

/** A tool call's identity and the files it touched, kept after its queue row is confirmed (provenance). */
export interface ToolEventRecord {
  toolName: string;
  inputPreview: string;
  failed: boolean;
  filesWritten: string[];
  filesRead: string[];
  /** The written files as absolute path keys, for the session's file evidence. */
  writtenKeys: string[];
  /** A failure's error text (shortened) and exit code, when the call failed. */
  error?: string | null;
  exitCode?: number | null;
  /** The subagent that made the call (Claude Code's agent_id, agent_type); absent for the main agent. */
  agentId?: string | null;
  agentType?: string | null;
}

export interface EnqueueInput {
  sessionId: string;
  kind: MessageKind;
  /** Same key, same session: a duplicate (tool_use_id for tool events). */
  toolUseId?: string | null;
  /** Other keys the same event may come under (a host's hooks and its transcript name a call differently): duplicates of it too. */
  alsoKnownAs?: readonly string[];
  payload: QueuedEvent;
  /** Stored with an observation message. */
  toolEvent?: ToolEventRecord | null;
  /** How many UTF-8 bytes of it the observer will read (after its per-event cuts); closes batches by size. A function is called only when the message is queued. */
  observerBytes?: number | null | (() => number);
  /** Held until then (a Stop whose final text its host writes later): the batch it closes waits for it. */
  notBefore?: number;
  nowMs: number;
}

/** A pending message as batching sees it: order, kind, when it may run, how big it is for the observer. */
export interface PendingHead {
  id: number;
  kind: MessageKind;
  notBefore: number;
  createdAt: number;
  /** The observer's view of it in UTF-8 bytes; for rows queued before that was recorded, the stored size. */
  bytes: number;
}

/** A message claimed in a batch: what the loop schedules by. Its payload is read once, by the turn that observes it. */
export interface ClaimedMessage {
  id: number;
  sessionId: string;
  kind: MessageKind;
  attempts: number;
}

interface QueueRow {
  id: number;
  session_id: string;
  kind: MessageKind;
  tool_use_id: string | null;
  payload: string;
  attempts: number;
  created_at: number;
}

export type Queue = ReturnType<typeof createQueue>;

/** The durable queue: pending → claimed → deleted on confirm; released rows wait for not_before. */
export function createQueue(db: Database.Database) {
  const seen = db.prepare('SELECT queue_id FROM queue_seen WHERE session_id = ? AND tool_use_id = ?');
  const markSeen = db.prepare('INSERT INTO queue_seen (session_id, tool_use_id, queue_id, created_at) VALUES (?, ?, ?, ?)');
  const insert = db.prepare(
    "INSERT INTO queue (session_id, kind, tool_use_id, payload, status, created_at, observer_bytes, not_before) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)",
  );
  const updateHeld = db.prepare(
    "UPDATE queue SET payload = ?, observer_bytes = ?, not_before = min(not_before, ?) WHERE id = ? AND status = 'pending' AND kind = 'summary'",
  );
  // Never tried yet: a summary waiting out a failed call's retry backoff is not a held one.
  const heldSummaries = db.prepare(
    "SELECT id, session_id, kind, tool_use_id, payload, attempts, created_at FROM queue WHERE status = 'pending' AND kind = 'summary' AND attempts = 0 AND not_before > ?",
  );
  const head = db.prepare(
    "SELECT id, kind, not_before, created_at, attempts, coalesce(observer_bytes, length(CAST(payload AS BLOB))) AS bytes FROM queue WHERE session_id = ? AND status = 'pending' ORDER BY id LIMIT ?",
  );
  const claimOne = db.prepare("UPDATE queue SET status = 'claimed', claimed_at = ? WHERE id = ? AND status = 'pending'");
  const releaseKeepAttempts = db.prepare("UPDATE queue SET status = 'pending', claimed_at = NULL, not_before = ? WHERE id = ? AND status = 'claimed'");
  const nextDue = db.prepare("SELECT id FROM queue WHERE status = 'pending' AND session_id = ? AND not_before <= ? ORDER BY id LIMIT 1");
  const claim = db.prepare(
    "UPDATE queue SET status = 'claimed', claimed_at = ? WHERE id = ? AND status = 'pending' RETURNING id, session_id, kind, tool_use_id, payload, attempts, created_at",
  );
  const byId = db.prepare('SELECT id, session_id, kind, tool_use_id, payload, attempts, created_at FROM queue WHERE id = ?');
  const confirmStmt = db.prepare("DELETE FROM queue WHERE id = ? AND status = 'claimed'");
  const releaseStmt = db.prepare(
    "UPDATE queue SET status = 'pending', claimed_at = NULL, attempts = attempts + 1, not_before = ? WHERE id = ? AND status = 'claimed'",
  );
  const depthStmt = db.prepare('SELECT count(*) AS n FROM queue');
  const sessionsAny = db.prepare('SELECT session_id, min(id) AS first FROM queue GROUP BY session_id ORDER BY first');
  // Ids only grow (AUTOINCREMENT): what was queued after `id` is a range of the table's own key.
  const newestBySession = db.prepare('SELECT session_id, max(id) AS last FROM queue WHERE id > ? GROUP BY session_id');
  const newestIdStmt = db.prepare('SELECT max(id) AS id FROM queue').pluck();
  const nextDueAtStmt = db.prepare("SELECT min(not_before) AS at FROM queue WHERE status = 'pending'");
  const nextDueForSession = db.prepare("SELECT min(not_before) AS at FROM queue WHERE status = 'pending' AND session_id = ?");
  const sessionWork = db.prepare('SELECT 1 FROM queue WHERE session_id = ? LIMIT 1');
  const releaseAll = db.prepare("UPDATE queue SET status = 'pending', claimed_at = NULL WHERE status = 'claimed'");
  const retrying = db.prepare("SELECT 1 FROM queue WHERE session_id = ? AND status = 'pending' AND attempts > 0 LIMIT 1");

  const renameEvent = db.prepare('UPDATE tool_events SET tool_use_id = ? WHERE queue_id = ? AND session_id = ?');
  const alsoNamedTx = db.transaction((sessionId: string, queuedAs: string, toolUseId: string, nowMs: number): boolean => {
    const existing = seen.get(sessionId, queuedAs) as { queue_id: number } | undefined;
    if (!existing || seen.get(sessionId, toolUseId) !== undefined) return false;
    markSeen.run(sessionId, toolUseId, existing.queue_id, nowMs);
    renameEvent.run(toolUseId, existing.queue_id, sessionId);
    return true;
  });

  const recordWritten = db.prepare('INSERT OR IGNORE INTO session_files_written (session_id, path) VALUES (?, ?)');
  const recordEvent = db.prepare(
    'INSERT OR IGNORE INTO tool_events (queue_id, session_id, tool_use_id, tool_name, input_preview, failed, files_written, files_read, error, exit_code, payload_chars, created_at, agent_id, agent_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );

  const enqueueTx = db.transaction((input: EnqueueInput): { status: 'queued' | 'duplicate'; id: number } => {
    const toolUseId = input.toolUseId ?? null;
    const keys = toolUseId === null ? [] : [toolUseId, ...(input.alsoKnownAs ?? [])];
    for (const key of keys) {
      const existing = seen.get(input.sessionId, key) as { queue_id: number } | undefined;
      if (existing) return { status: 'duplicate', id: existing.queue_id };
    }
    const payload = JSON.stringify(input.payload);
    // Measured only for a message that is queued: a duplicate (a replay, a mined event the hooks already sent) costs no rendering.
    const bytes = typeof input.observerBytes === 'function' ? input.observerBytes() : (input.observerBytes ?? null);
    const id = Number(insert.run(input.sessionId, input.kind, toolUseId, payload, input.nowMs, bytes, input.notBefore ?? 0).lastInsertRowid);
    for (const key of new Set(keys)) markSeen.run(input.sessionId, key, id, input.nowMs);
    const tool = input.toolEvent;
    if (tool) {
      // The session's file evidence and `memtrace show`'s provenance outlive the queue row.
      recordEvent.run(
        id,
        input.sessionId,
        toolUseId,
        tool.toolName,
        tool.inputPreview,
        tool.failed ? 1 : 0,
        JSON.stringify(tool.filesWritten),
        JSON.stringify(tool.filesRead),
        tool.error ?? null,
        tool.exitCode ?? null,
        payload.length,
        input.nowMs,
        tool.agentId ?? null,
        tool.agentType ?? null,
      );
      for (const key of tool.writtenKeys) recordWritten.run(input.sessionId, key);
    }
    return { status: 'queued', id };
  });

  const claimTx = db.transaction((sessionId: string, nowMs: number): QueueMessage | null => {
    const due = nextDue.get(sessionId, nowMs) as { id: number } | undefined;
    if (!due) return null;
    const row = claim.get(nowMs, due.id) as QueueRow | undefined;
    return row ? toMessage(row) : null;
  });

  const toHead = (r: Record<string, unknown>): PendingHead & { attempts: number } => ({
    id: r.id as number,
    kind: r.kind as MessageKind,
    notBefore: r.not_before as number,
    createdAt: r.created_at as number,
    bytes: Number(r.bytes),
    attempts: r.attempts as number,
  });
  const claimBatchTx = db.transaction((sessionId: string, limit: number, nowMs: number, choose: (rows: PendingHead[]) => number[]): ClaimedMessage[] => {
    const heads = new Map((head.all(sessionId, limit) as Array<Record<string, unknown>>).map((r) => [r.id as number, toHead(r)]));
    const claimed: ClaimedMessage[] = [];
    for (const id of choose([...heads.values()])) {
      const chosen = heads.get(id);
      if (chosen && claimOne.run(nowMs, id).changes === 1) claimed.push({ id, sessionId, kind: chosen.kind, attempts: chosen.attempts });
    }
    return claimed;
  });

  return {
    /** Commits before returning; a tool_use_id already seen in the session is a duplicate. */
    enqueue: (input: EnqueueInput) => enqueueTx.immediate(input),
    /** The oldest due pending message of the session, now claimed. */
    claimNext: (sessionId: string, nowMs: number) => claimTx.immediate(sessionId, nowMs),
    get(id: number): QueueMessage | null {
      const row = byId.get(id) as QueueRow | undefined;
      return row ? toMessage(row) : null;
    },
    confirm: (id: number) => confirmStmt.run(id).changes === 1,
    release: (id: number, notBeforeMs: number) => releaseStmt.run(notBeforeMs, id).changes === 1,
    /**
     * The session's first `limit` pending messages in order; `choose` (the batching policy) picks
     * which of them to claim, in the same transaction. Returns the claimed messages.
     */
    claimBatch: (sessionId: string, limit: number, nowMs: number, choose: (rows: PendingHead[]) => number[]) =>
      claimBatchTx.immediate(sessionId, limit, nowMs, choose),
    /** Returns claimed messages; `countAttempt: false` when the call never failed (a budget or shutdown hold). */
    releaseMany(ids: readonly number[], notBeforeMs: number, countAttempt: boolean): number {
      let n = 0;
      for (const id of ids) n += (countAttempt ? releaseStmt : releaseKeepAttempts).run(notBeforeMs, id).changes;
      return n;
    },
    releaseAllClaimed: () => releaseAll.run().changes,
    depth: () => (depthStmt.get() as { n: number }).n,
    /** Every session with a queued message, oldest first: read once when the loop starts. */
    sessionsWithWork: () => (sessionsAny.all() as Array<{ session_id: string }>).map((r) => r.session_id),
    /** Every session with a message queued after `afterId` (0: any), and the id of its newest one. */
    newestQueued: (afterId: number) =>
      new Map((newestBySession.all(afterId) as Array<{ session_id: string; last: number }>).map((r) => [r.session_id, r.last])),
    /** The id of the newest message in the queue; 0 when it is empty. */
    newestId: () => Number(newestIdStmt.get() ?? 0),
    /** When the next pending message (of one session, or of any) is due. */
    nextDueAt: (sessionId?: string) => ((sessionId === undefined ? nextDueAtStmt.get() : nextDueForSession.get(sessionId)) as { at: number | null }).at,
    sessionHasWork: (sessionId: string) => sessionWork.get(sessionId) !== undefined,
    /**
     * A held summary request (queued with `notBefore` in the future) with its payload completed,
     * due now. False when the observer already took it (its hold ran out).
     */
    releaseHeld: (id: number, payload: QueuedEvent, observerBytes: number, nowMs: number) =>
      updateHeld.run(JSON.stringify(payload), observerBytes, nowMs, id).changes === 1,
    /** Summary requests still held (a restarted worker resumes waiting for their text). */
    heldSummaries: (nowMs: number) => (heldSummaries.all(nowMs) as QueueRow[]).map(toMessage),
    /**
     * The message queued under `queuedAs` is also known as `toolUseId` (a host whose hooks name no
     * call, named later from its transcript): a later event under either id is a duplicate, and
     * the tool event is shown under the new one. False when there is nothing to do.
     */
    alsoNamed: (sessionId: string, queuedAs: string, toolUseId: string, nowMs: number) => alsoNamedTx.immediate(sessionId, queuedAs, toolUseId, nowMs),
    /** Whether this tool_use_id was ever enqueued for the session (what enqueue would call a duplicate). */
    hasSeen: (sessionId: string, toolUseId: string) => seen.get(sessionId, toolUseId) !== undefined,
    /** Whether a message of the session is waiting for a retry after a failed observer call. */
    hasRetrying: (sessionId: string) => retrying.get(sessionId) !== undefined,
  };
}

function toMessage(row: QueueRow): QueueMessage {
  return {
    id: row.id,
    sessionId: row.session_id,
    kind: row.kind,
    toolUseId: row.tool_use_id,
    payload: queuedEventOf(row),
    attempts: row.attempts,
    createdAt: row.created_at,
  };
}

/**
 * The stored payload as the event it is. Rows written before events carried their `kind`
 * (0.2.0 and older) are read by their shape: an observation with `error` was a failure.
 */
function queuedEventOf(row: QueueRow): QueuedEvent {
  const value = JSON.parse(row.payload) as Record<string, unknown> | null;
  const payload = value !== null && typeof value === 'object' ? value : {};
  const at = typeof payload.at === 'number' ? payload.at : row.created_at;
  if (typeof payload.kind === 'string') return { ...payload, session_id: row.session_id, at } as QueuedEvent;
  if (row.kind === 'summary') return { ...payload, kind: 'stop', session_id: row.session_id, at } as QueuedEvent;
  const kind = typeof payload.error === 'string' ? 'post_tool_use_failure' : 'post_tool_use';
  return { tool_name: 'unknown', tool_input: null, ...payload, kind, session_id: row.session_id, at } as QueuedEvent;
}
