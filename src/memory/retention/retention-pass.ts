import type { RawData, RawRemoved } from '../../store/index.js';

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
}

export const DAY_MS = 86_400_000;
/** Rows of each kind per transaction (a session's written files go with it): a few ms each at a million observations. */
export const DEFAULT_RETENTION_BATCH = 100;
/** Free pages handed back per step. */
const VACUUM_STEP_PAGES = 256;

function retentionCutoff(nowMs: number, days: number): number {
  return nowMs - days * DAY_MS;
}

const total = (r: RawRemoved) => r.toolEvents + r.prompts + r.sessionFiles;

export async function runRetentionPass(config: RetentionConfig, deps: RetentionPassDeps, nowMs: number): Promise<RetentionReport> {
  const { raw } = deps;
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
      raw.vacuumFreePages(VACUUM_STEP_PAGES);
      await deps.pause();
      const left = raw.size().freePages;
      if (left >= free) break;
      free = left;
    }
  };

  for (;;) {
    const batch = raw.pruneProcessed(cutoffAt, config.batch);
    add(batch);
    if (Math.max(batch.toolEvents, batch.prompts, batch.sessionFiles) < config.batch) break;
    await deps.pause();
  }
  removed.spoolFiles = deps.pruneSpool(cutoffAt);
  await vacuum();

  let removedForBudget = 0;
  // Over budget: processed raw data of any age, oldest first, then messages not yet observed.
  while (used() > config.maxDbBytes) {
    const n = add(raw.pruneProcessed(Number.MAX_SAFE_INTEGER, config.batch));
    if (n === 0) break;
    removedForBudget += n;
    await vacuum();
    await deps.pause();
  }
  while (used() > config.maxDbBytes) {
    const n = raw.dropOldestPending(config.batch);
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
  };
}
