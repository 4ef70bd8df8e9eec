import type { PendingHead } from '../store/index.js';

/**
 * When an agent turn's events go to the observer as one call (docs/observer.md#batches). A batch
 * is the session's pending messages from the oldest on, in order: tool events, closed by the
 * turn's end (a Stop, or the summary request queued at session end), which it includes; or closed
 * earlier for a long turn, when it holds `maxEvents` events, about `maxTokens` tokens of events
 * (their UTF-8 size after the per-event cuts, at 4 bytes a token), or its oldest event has waited
 * `maxWaitMs`. Pure: rows and time in, a decision out.
 */
export interface BatchLimits {
  maxEvents: number;
  maxTokens: number;
  maxWaitMs: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxEvents: 40, maxTokens: 8_000, maxWaitMs: 300_000 };

const BYTES_PER_TOKEN = 4;

export type BatchDecision =
  | { close: number[]; reason: 'turn_end' | 'events' | 'tokens' | 'waited' }
  /** Open: nothing to claim before this time (the oldest event's wait ends, or a retry's backoff). */
  | { waitUntilMs: number }
  | { empty: true };

export function decideBatch(rows: readonly PendingHead[], nowMs: number, limits: BatchLimits): BatchDecision {
  const first = rows[0];
  if (!first) return { empty: true };
  // In order: a message waiting for its retry holds the ones after it (they were released with it).
  if (first.notBefore > nowMs) return { waitUntilMs: first.notBefore };
  const maxBytes = limits.maxTokens * BYTES_PER_TOKEN;
  const ids: number[] = [];
  let bytes = 0;
  for (const row of rows) {
    // A later message waiting for its own retry is not part of this batch.
    if (row.notBefore > nowMs) break;
    if (row.kind === 'summary') return { close: [...ids, row.id], reason: 'turn_end' };
    if (ids.length >= limits.maxEvents) return { close: ids, reason: 'events' };
    if (ids.length > 0 && bytes + row.bytes > maxBytes) return { close: ids, reason: 'tokens' };
    ids.push(row.id);
    bytes += row.bytes;
  }
  const waitEnds = first.createdAt + limits.maxWaitMs;
  return waitEnds <= nowMs ? { close: ids, reason: 'waited' } : { waitUntilMs: waitEnds };
}

/** How many pending rows the policy needs to see: one past the event cap, so it knows the turn's end is not next. */
export function batchWindow(limits: BatchLimits): number {
  return limits.maxEvents + 1;
}
