import { PRUNE_START, type RawData, type RawRemoved } from '../../store/index.js';

/**
 * One retention pass (docs/secrets-and-retention.md#retention): raw data processed more than MEMTRACE_RAW_RETENTION_DAYS ago
 * goes; then, while the store is over MEMTRACE_MAX_DB_MB, the oldest processed raw data goes
 * whatever its age, then the oldest messages not yet observed. Observations, summaries and
 * their provenance ids are never removed here: a store still over budget is reported as such.
 * Freed pages go back to the file system (incremental vacuum) after each step.
 */
export interface RetentionConfig {
  rawRetentionDays: number;
  maxDbBytes: number;
  /** Rows of each kind per transaction: short transactions keep hook requests flowing. */
  batch: number;
}

export interface RetentionPassDeps {
  raw: RawData;
  /** Removes spool files written before the cutoff; returns how many. */
  pruneSpool(cutoffMs: number): number;
  /** Lets the event loop serve requests between batches. */
  pause(): Promise<void>;
  /** A monotonic clock in ms, to report how long the pass and its longest step took. */
  elapsedMs?(): number;
  /**
   * Runs one write (a batch, a vacuum step). The worker's waits only briefly for another
   * process's write lock (an import) and tries again a moment later, so the event loop hooks
   * need is never held for that process's transaction. Each write can be repeated whole.
   */
  write?<T>(fn: () => T): Promise<T>;
}

export interface RetentionReport {
  at: number;
  /** Raw data processed before this instant was pruned by age. */
  cutoffAt: number;
  removed: { toolEvents: number; prompts: number; sessionFiles: number; spoolFiles: number; unprocessedDropped: number };
  /** Raw rows removed (by age or budget) only because the store was over its budget. */
  removedForBudget: number;
  bytesBefore: number;
  bytesAfter: number;
  budgetBytes: number;
  overBudget: boolean;
  autoVacuum: 'none' | 'full' | 'incremental';
  /** How long the pass took, pauses included. */
  durationMs: number;
  /** The longest write of the pass: inside the worker, the longest a hook waited for the event loop because of it. */
  longestStepMs: number;
  /** Writes (batches and vacuum steps) the pass made. */
  steps: number;
}

export const DAY_MS = 86_400_000;
/** Rows of each kind per transaction (a session's written files go with it): a few ms each at a million observations. */
export const DEFAULT_RETENTION_BATCH = 100;
/** Free pages handed back per step: 256 took 21 ms at p50 and up to 70 ms at a million observations (a write the event loop waits for). */
const VACUUM_STEP_PAGES = 64;

function retentionCutoff(nowMs: number, days: number): number {
  return nowMs - days * DAY_MS;
}

const total = (r: RawRemoved) => r.toolEvents + r.prompts + r.sessionFiles;

export async function runRetentionPass(config: RetentionConfig, deps: RetentionPassDeps, nowMs: number): Promise<RetentionReport> {
  const elapsed = deps.elapsedMs ?? (() => 0);
  const passStarted = elapsed();
  let longestStepMs = 0;
  let steps = 0;
  const run = deps.write ?? (async <T>(fn: () => T): Promise<T> => fn());
  // Each write, timed: one synchronous step the event loop waits for (each try, when one is tried
  // again after the lock was busy); counted once it is made.
  const step = async <T>(write: () => T): Promise<T> => {
    const result = await run(() => {
      const started = elapsed();
      try {
        return write();
      } finally {
        longestStepMs = Math.max(longestStepMs, elapsed() - started);
      }
    });
    steps += 1;
    return result;
  };
  const raw = {
    ...deps.raw,
    pruneProcessed: (...a: Parameters<RawData['pruneProcessed']>) => step(() => deps.raw.pruneProcessed(...a)),
    dropOldestPending: (limit: number) => step(() => deps.raw.dropOldestPending(limit)),
    vacuumFreePages: (pages: number) => step(() => deps.raw.vacuumFreePages(pages)),
  };
  const cutoffAt = retentionCutoff(nowMs, config.rawRetentionDays);
  const removed = { toolEvents: 0, prompts: 0, sessionFiles: 0, spoolFiles: 0, unprocessedDropped: 0 };
  const add = (r: RawRemoved) => {
    removed.toolEvents += r.toolEvents;
    removed.prompts += r.prompts;
    removed.sessionFiles += r.sessionFiles;
    return total(r);
  };
  const before = raw.size();
  const used = () => {
    const s = raw.size();
    return (s.pageCount - s.freePages) * s.pageSize;
  };
  const vacuum = async () => {
    if (raw.size().autoVacuum !== 'incremental') return;
    for (let free = raw.size().freePages; free > 0; ) {
      await raw.vacuumFreePages(VACUUM_STEP_PAGES);
      await deps.pause();
      const left = raw.size().freePages;
      if (left >= free) break;
      free = left;
    }
  };

  for (let from = PRUNE_START; ; ) {
    const batch = await raw.pruneProcessed(cutoffAt, config.batch, from);
    add(batch);
    if (batch.done) break;
    from = batch.next;
    await deps.pause();
  }
  removed.spoolFiles = deps.pruneSpool(cutoffAt);
  await vacuum();

  let removedForBudget = 0;
  // Over budget: processed raw data of any age, oldest first, then messages not yet observed.
  for (let from = PRUNE_START; used() > config.maxDbBytes; ) {
    const batch = await raw.pruneProcessed(Number.MAX_SAFE_INTEGER, config.batch, from);
    removedForBudget += add(batch);
    await vacuum();
    if (batch.done) break;
    from = batch.next;
    await deps.pause();
  }
  while (used() > config.maxDbBytes) {
    const n = await raw.dropOldestPending(config.batch);
    if (n === 0) break;
    removed.unprocessedDropped += n;
    removedForBudget += n;
    await vacuum();
    await deps.pause();
  }
  const after = raw.size();
  return {
    at: nowMs,
    cutoffAt,
    removed,
    removedForBudget,
    bytesBefore: before.bytes,
    bytesAfter: after.bytes,
    budgetBytes: config.maxDbBytes,
    overBudget: used() > config.maxDbBytes,
    autoVacuum: after.autoVacuum,
    durationMs: Math.round(elapsed() - passStarted),
    longestStepMs: Math.round(longestStepMs * 10) / 10,
    steps,
  };
}
