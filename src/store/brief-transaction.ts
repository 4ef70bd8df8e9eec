import type Database from 'better-sqlite3';

/** Another connection (an import or a forget in a process of its own) held the store's write lock past the wait given. */
export function isStoreBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

/**
 * Runs `fn` with the connection waiting at most `waitMs` for another connection's write lock,
 * then SQLITE_BUSY (isStoreBusy). better-sqlite3 waits by sleeping on the calling thread: in the
 * worker that is the event loop every hook needs. The usual wait is put back after, also when
 * `fn` throws.
 */
export function lockWaits(db: Database.Database, waitMs: number, usualWaitMs: number): <T>(fn: () => T) => T {
  // Compiled every time: SQLite sets busy_timeout when it compiles the pragma, so a statement
  // prepared once and stepped again changes nothing (until a rollback makes SQLite compile it
  // anew): the first hook after a start would have waited the usual 5 s. Through db.exec, not
  // db.pragma: no statement object and no result rows, a fifth of the CPU (2 against 10 µs the pair).
  const brief = `PRAGMA busy_timeout = ${Math.max(0, Math.trunc(waitMs))}`;
  const usual = `PRAGMA busy_timeout = ${Math.max(0, Math.trunc(usualWaitMs))}`;
  return <T>(fn: () => T): T => {
    db.exec(brief);
    try {
      return fn();
    } finally {
      db.exec(usual);
    }
  };
}

/**
 * Immediate transactions that wait at most `waitMs` for the write lock, for a caller with
 * something better to do than wait: a hook's event is spooled instead (src/worker/busy-spill.ts).
 * The lock is taken at BEGIN, so nothing of `fn` has run when it throws busy.
 */
export function briefTransactions(db: Database.Database, waitMs: number, usualWaitMs: number): <T>(fn: () => T) => T {
  const transaction = db.transaction((fn: () => unknown) => fn());
  const waiting = lockWaits(db, waitMs, usualWaitMs);
  return <T>(fn: () => T): T => waiting(() => transaction.immediate(fn) as T);
}

/**
 * Writes that never hold the event loop long for another process's lock: each try waits briefly,
 * and a busy one is tried again after `retryMs` (the loop serves hooks meanwhile), for up to
 * `giveUpMs`, when the busy error is thrown. For background work whose write can be repeated
 * whole (a retention batch).
 */
export function patientWrites(
  waiting: <T>(fn: () => T) => T,
  options: { retryMs: number; giveUpMs: number; sleep(ms: number): Promise<void>; nowMs(): number },
): <T>(fn: () => T) => Promise<T> {
  return async <T>(fn: () => T): Promise<T> => {
    const until = options.nowMs() + options.giveUpMs;
    for (;;) {
      try {
        return waiting(fn);
      } catch (error) {
        if (!isStoreBusy(error) || options.nowMs() >= until) throw error;
      }
      await options.sleep(options.retryMs);
    }
  };
}
