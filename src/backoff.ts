/**
 * A backoff schedule is data; the delay is one pure function. Every retrying part of memtrace (the
 * observer loop, compaction, transcript mining, the telemetry sink) keeps its own schedule and
 * asks this for the wait, so "base × 2ⁿ, capped" is written once.
 */
export interface BackoffSchedule {
  baseMs: number;
  capMs: number;
}

/**
 * The wait before retry number `attempt` (0 for the first retry): base × 2^attempt, capped. A
 * longer Retry-After from the other side wins, up to `retryAfterCapMs` (default: the cap).
 */
export function backoffDelayMs(schedule: BackoffSchedule, attempt: number, retryAfter: { ms: number | null; capMs?: number } = { ms: null }): number {
  const exponential = Math.min(schedule.capMs, schedule.baseMs * 2 ** Math.min(Math.max(Math.floor(attempt), 0), 30));
  return retryAfter.ms !== null && retryAfter.ms > exponential ? Math.min(retryAfter.ms, retryAfter.capMs ?? schedule.capMs) : exponential;
}
