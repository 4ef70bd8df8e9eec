import type Database from 'better-sqlite3';
import { lockWaits, patientWrites, STORE_BUSY_WAIT_MS } from '../store/index.js';
import type { Timers } from '../timers.js';
import { HOOK_STORE_WAIT_MS } from './busy-spill.js';

/** How soon a background write that found the lock busy is tried again. */
const RETRY_MS = 25;
/** A background write busy this long fails (its task tries again later, as for any failure). */
const GIVE_UP_MS = 60_000;

/**
 * The worker's background writes that can be repeated whole (retention's batches and vacuum
 * steps): each waits no longer than a hook's event would for another process's write lock, and
 * a busy one is tried again a moment later, so an import's long commit never holds the event
 * loop that serves hooks.
 */
export function backgroundWrites(db: Database.Database, timers: Timers, nowMs: () => number): <T>(fn: () => T) => Promise<T> {
  return patientWrites(lockWaits(db, HOOK_STORE_WAIT_MS, STORE_BUSY_WAIT_MS), {
    retryMs: RETRY_MS,
    giveUpMs: GIVE_UP_MS,
    sleep: (ms) => new Promise<void>((resolve) => timers.setTimeout(resolve, ms)),
    nowMs,
  });
}
