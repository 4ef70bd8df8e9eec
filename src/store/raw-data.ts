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

// Every queue row is pending or claimed; naming both lets the lookup use queue_due (status, session_id, …)
// instead of reading the whole queue once per row (a queue of 60,000 unobserved events made a pass take minutes).
const NO_QUEUE_FOR_SESSION = (alias: string) =>
  `NOT EXISTS (SELECT 1 FROM queue q WHERE q.status IN ('pending', 'claimed') AND q.session_id = ${alias}.session_id)`;

export function createRawData(db: Database.Database) {
  const toolEvents = db.prepare(`
    DELETE FROM tool_events WHERE queue_id IN (
      SELECT t.queue_id FROM tool_events t
      WHERE t.created_at < ? AND NOT EXISTS (SELECT 1 FROM queue q WHERE q.id = t.queue_id)
      ORDER BY t.created_at LIMIT ?)`);
  const prompts = db.prepare(`
    DELETE FROM session_prompts WHERE id IN (
      SELECT p.id FROM session_prompts p WHERE p.created_at < ? AND ${NO_QUEUE_FOR_SESSION('p')}
      ORDER BY p.created_at LIMIT ?)`);
  const firstPrompts = db.prepare(`
    UPDATE sessions SET prompt = NULL WHERE session_id IN (
      SELECT s.session_id FROM sessions s WHERE s.prompt IS NOT NULL AND s.updated_at < ? AND ${NO_QUEUE_FOR_SESSION('s')}
      ORDER BY s.updated_at LIMIT ?)`);
  const sessionFiles = db.prepare(`
    DELETE FROM session_files_written WHERE session_id IN (
      SELECT s.session_id FROM sessions s WHERE s.updated_at < ? AND ${NO_QUEUE_FOR_SESSION('s')}
        AND EXISTS (SELECT 1 FROM session_files_written f WHERE f.session_id = s.session_id)
      ORDER BY s.updated_at LIMIT ?)`);
  const oldestPending = db.prepare("DELETE FROM queue WHERE id IN (SELECT id FROM queue WHERE status = 'pending' ORDER BY id LIMIT ?)");
  const pruneTx = db.transaction((cutoffMs: number, limit: number): RawRemoved => {
    const removed = {
      toolEvents: toolEvents.run(cutoffMs, limit).changes,
      prompts: prompts.run(cutoffMs, limit).changes,
      sessionFiles: sessionFiles.run(cutoffMs, limit).changes,
    };
    removed.prompts += firstPrompts.run(cutoffMs, limit).changes;
    return removed;
  });

  return {
    /** Processed raw rows from before `cutoffMs`, oldest first, at most `limit` of each kind. */
    pruneProcessed: (cutoffMs: number, limit: number): RawRemoved => pruneTx.immediate(cutoffMs, limit),
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
