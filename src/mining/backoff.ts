import { backoffDelayMs, type BackoffSchedule } from '../backoff.js';

/**
 * Retry backoff per session file, as the mining seed specifies: a failed attempt waits 5 min,
 * doubling per failure, capped at 30 min; attempts inside the window are skipped. Pure: time
 * comes in as `nowMs`; the map lives in memory (see docs/mining.md for why it is not persisted).
 */
export const MINING_BACKOFF: BackoffSchedule = { baseMs: 5 * 60_000, capMs: 30 * 60_000 };

/** The wait after the n-th consecutive failure (n ≥ 1): 5, 10, 20, 30, 30 … minutes. */
export function failureDelayMs(failures: number, schedule: BackoffSchedule = MINING_BACKOFF): number {
  return backoffDelayMs(schedule, Math.max(1, Math.floor(failures)) - 1);
}

export interface BackoffEntry {
  failures: number;
  retryAtMs: number;
}

export interface BackoffMap {
  /** Whether an attempt now falls inside the file's window (then it is skipped, not queued). */
  blocked(key: string, nowMs: number): boolean;
  /** Records a failed attempt; returns when the next one may run. */
  failed(key: string, nowMs: number): BackoffEntry & { delayMs: number };
  /** A successful attempt clears the file's history. */
  succeeded(key: string): void;
  entry(key: string): BackoffEntry | undefined;
  size(): number;
}

export function createBackoffMap(schedule: BackoffSchedule = MINING_BACKOFF): BackoffMap {
  const entries = new Map<string, BackoffEntry>();
  return {
    blocked(key, nowMs) {
      const e = entries.get(key);
      return e !== undefined && nowMs < e.retryAtMs;
    },
    failed(key, nowMs) {
      const failures = (entries.get(key)?.failures ?? 0) + 1;
      const delayMs = failureDelayMs(failures, schedule);
      const next = { failures, retryAtMs: nowMs + delayMs };
      entries.set(key, next);
      return { ...next, delayMs };
    },
    succeeded(key) {
      entries.delete(key);
    },
    entry: (key) => entries.get(key),
    size: () => entries.size,
  };
}
