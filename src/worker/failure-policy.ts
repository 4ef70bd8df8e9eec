import { ProviderError, type ProviderErrorKind } from '../providers/types.js';
import type { AbortReason } from '../observer/turn-record.js';
import { backoffDelayMs, type BackoffSchedule } from '../backoff.js';
import { BudgetExhaustedError } from './observer-budget.js';

export type { BackoffSchedule } from '../backoff.js';

/**
 * What the loop does with a failed observer call, decided from the typed error only.
 * provider: the provider said "wait" (auth, quota, rate limit, overload) — every session waits,
 *   the message is kept, and one probe call goes first when the wait is over.
 * release: this message goes back with backoff (transport trouble, a timeout, our own bug).
 * confirm: the request can never succeed; drop the message and count it (bad request).
 * budget_wait: the call was never made, the day's budget has no room for it: every session waits
 *   for the next UTC day, the messages go back untouched (no attempt counted).
 */
export type FailureDecision =
  | { action: 'budget_wait'; resumeAtMs: number }
  | { action: 'provider_wait'; reason: ProviderWaitReason; abortReason: AbortReason; retryAfterMs: number | null }
  | { action: 'release'; abortReason: AbortReason; retryAfterMs: number | null }
  | { action: 'confirm'; abortReason: AbortReason };

export type ProviderWaitReason = 'auth' | 'quota' | 'rate_limit' | 'overloaded';

const PROVIDER_WIDE: ReadonlySet<ProviderErrorKind> = new Set(['auth', 'quota', 'rate_limit', 'overloaded']);

export function decideFailure(error: unknown): FailureDecision {
  if (error instanceof BudgetExhaustedError) return { action: 'budget_wait', resumeAtMs: error.resumeAtMs };
  if (error instanceof ProviderError) {
    if (PROVIDER_WIDE.has(error.kind))
      return { action: 'provider_wait', reason: error.kind as ProviderWaitReason, abortReason: error.kind, retryAfterMs: error.retryAfterMs };
    if (error.kind === 'bad_request') return { action: 'confirm', abortReason: 'bad_request' };
    return { action: 'release', abortReason: error.kind, retryAfterMs: error.retryAfterMs };
  }
  // An unexpected error is our bug, not the message's fault: keep the message and retry later.
  return { action: 'release', abortReason: 'transport', retryAfterMs: null };
}

/** The longest a provider's Retry-After is honoured (documented in docs/architecture.md). */
export const RETRY_AFTER_CAP_MS = 3_600_000;

/** The loop's wait: its schedule, and a longer Retry-After honoured up to RETRY_AFTER_CAP_MS. */
export function retryDelayMs(attempt: number, schedule: BackoffSchedule, retryAfterMs: number | null): number {
  return backoffDelayMs(schedule, attempt, { ms: retryAfterMs, capMs: RETRY_AFTER_CAP_MS });
}
