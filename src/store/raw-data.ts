import type Database from 'better-sqlite3';

/**
 * The raw data the store keeps beyond the queue (docs/secrets-and-retention.md): each tool
 * event's input preview and file lists, every prompt of a session, and the files a session
 * wrote. A row is processed once no queue message of its session (tool events: its own
 * message) is left. Pruning goes oldest first, in batches, so each transaction stays short.
 */
export interface RawRemoved {
  toolEvents: number;
  prompts: number;
  sessionFiles: number;
}

export interface StoreSize {
  pageSize: number;
  pageCount: number;
  freePages: number;
  /** page_count × page_size: the main file's size once the WAL is checkpointed. */
  bytes: number;
  autoVacuum: 'none' | 'full' | 'incremental';
}

export type RawData = ReturnType<typeof createRawData>;

/**
 * Where a pass has got to in each table, in the order it prunes (time, then rowid). A pass keeps
 * it from batch to batch so no batch reads again what an earlier one pruned or kept: scanning
 * from the start every time re-read every already-pruned session (their prompt gone, their files
 * gone) in each of ~20,000 batches at a million observations — a pass ran for over 23 minutes.
 */
interface PruneCursor {
  toolEvents: readonly [number, number];
  prompts: readonly [number, number];
  sessions: readonly [number, number];
}

const FIRST = [Number.MIN_SAFE_INTEGER, 0] as const;
export const PRUNE_START: PruneCursor = { toolEvents: FIRST, prompts: FIRST, sessions: FIRST };

interface RawPruned extends RawRemoved {
  /** Where the next batch of the same pass starts. */
  next: PruneCursor;
  /** True when every table's window came back short: nothing older than the cutoff is left to look at. */
  done: boolean;
}

// Every queue row is pending or claimed; naming both lets the lookup use queue_due (status, session_id, …)
// instead of reading the whole queue once per row (a queue of 60,000 unobserved events made a pass take minutes).
const NO_QUEUE_FOR_SESSION = (alias: string) =>
  `NOT EXISTS (SELECT 1 FROM queue q WHERE q.status IN ('pending', 'claimed') AND q.session_id = ${alias}.session_id)`;

interface Window {
  at: number;
  row: number;
  prunable: number;
}

export function createRawData(db: Database.Database) {
  // Each batch reads a window of at most `limit` rows past the cursor (older than the cutoff), so a
  // batch's work is bounded whatever is kept; `prunable` says which of them may go.
  const toolWindow = db.prepare(`
    SELECT t.created_at AS at, t.queue_id AS row, NOT EXISTS (SELECT 1 FROM queue q WHERE q.id = t.queue_id) AS prunable
    FROM tool_events t WHERE (t.created_at, t.queue_id) > (?, ?) AND t.created_at < ?
    ORDER BY t.created_at, t.queue_id LIMIT ?`);
  const promptWindow = db.prepare(`
    SELECT p.created_at AS at, p.id AS row, ${NO_QUEUE_FOR_SESSION('p')} AS prunable
    FROM session_prompts p WHERE (p.created_at, p.id) > (?, ?) AND p.created_at < ?
    ORDER BY p.created_at, p.id LIMIT ?`);
  const sessionWindow = db.prepare(`
    SELECT s.updated_at AS at, s.rowid AS row, ${NO_QUEUE_FOR_SESSION('s')} AS prunable
    FROM sessions s WHERE (s.updated_at, s.rowid) > (?, ?) AND s.updated_at < ?
    ORDER BY s.updated_at, s.rowid LIMIT ?`);
  const inList = 'IN (SELECT value FROM json_each(?))';
  const deleteToolEvents = db.prepare(`DELETE FROM tool_events WHERE queue_id ${inList}`);
  const deletePrompts = db.prepare(`DELETE FROM session_prompts WHERE id ${inList}`);
  const clearFirstPrompts = db.prepare(`UPDATE sessions SET prompt = NULL WHERE rowid ${inList} AND prompt IS NOT NULL`);
  const deleteSessionFiles = db.prepare(`DELETE FROM session_files_written WHERE session_id IN (SELECT session_id FROM sessions WHERE rowid ${inList})`);
  const oldestPending = db.prepare("DELETE FROM queue WHERE id IN (SELECT id FROM queue WHERE status = 'pending' ORDER BY id LIMIT ?)");

  const prunableRows = (rows: Window[]) => JSON.stringify(rows.filter((r) => r.prunable).map((r) => r.row));
  const after = (rows: Window[], from: readonly [number, number]): readonly [number, number] => {
    const last = rows.at(-1);
    return last ? [last.at, last.row] : from;
  };
  const pruneTx = db.transaction((cutoffMs: number, limit: number, from: PruneCursor): RawPruned => {
    const tools = toolWindow.all(...from.toolEvents, cutoffMs, limit) as Window[];
    const prompts = promptWindow.all(...from.prompts, cutoffMs, limit) as Window[];
    const sessions = sessionWindow.all(...from.sessions, cutoffMs, limit) as Window[];
    const sessionRows = prunableRows(sessions);
    return {
      toolEvents: deleteToolEvents.run(prunableRows(tools)).changes,
      prompts: deletePrompts.run(prunableRows(prompts)).changes + clearFirstPrompts.run(sessionRows).changes,
      sessionFiles: deleteSessionFiles.run(sessionRows).changes,
      next: { toolEvents: after(tools, from.toolEvents), prompts: after(prompts, from.prompts), sessions: after(sessions, from.sessions) },
      done: tools.length < limit && prompts.length < limit && sessions.length < limit,
    };
  });

  return {
    /**
     * One batch of a pass: of the next `limit` rows of each kind from before `cutoffMs` (oldest first,
     * past `from`), those processed go. Start a pass at PRUNE_START and go on from `next` until `done`.
     */
    pruneProcessed: (cutoffMs: number, limit: number, from: PruneCursor = PRUNE_START): RawPruned => pruneTx.immediate(cutoffMs, limit, from),
    /** The oldest messages no observer call has taken yet: only when the store is over its budget. */
    dropOldestPending: (limit: number): number => oldestPending.run(limit).changes,
    size(): StoreSize {
      const pageSize = Number(db.pragma('page_size', { simple: true }));
      const pageCount = Number(db.pragma('page_count', { simple: true }));
      const mode = Number(db.pragma('auto_vacuum', { simple: true }));
      return {
        pageSize,
        pageCount,
        freePages: Number(db.pragma('freelist_count', { simple: true })),
        bytes: pageSize * pageCount,
        autoVacuum: mode === 2 ? 'incremental' : mode === 1 ? 'full' : 'none',
      };
    },
    /**
     * Returns up to `pages` free pages to the file system (the file shrinks at the next checkpoint);
     * a no-op without incremental auto-vacuum. Each call is one write: moving thousands of pages at
     * once held the store's lock for seconds, so callers go in steps.
     */
    vacuumFreePages(pages: number): void {
      db.pragma(`incremental_vacuum(${Math.max(1, Math.trunc(pages))})`);
    },
  };
}
