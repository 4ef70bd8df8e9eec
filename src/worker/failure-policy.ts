import { ProviderError, type ProviderErrorKind } from '../providers/types.js';
import type { AbortReason } from './turn-record.js';

/**
 * What the loop does with a failed observer call, decided from the typed error only.
 * pause: keep the message and stop calling for this session until a probe succeeds (auth).
 * release: put the message back with backoff (quota, rate limit, overloaded, transport).
 * confirm: the request can never succeed; drop the message and count it (bad request).
 */
export type FailureAction = 'pause' | 'release' | 'confirm';

export interface FailureDecision {
  action: FailureAction;
  abortReason: AbortReason;
  retryAfterMs: number | null;
}

const ACTIONS: Record<ProviderErrorKind, FailureAction> = {
  auth: 'pause',
  quota: 'release',
  rate_limit: 'release',
  overloaded: 'release',
  transport: 'release',
  bad_request: 'confirm',
};

export function decideFailure(error: unknown): FailureDecision {
  if (error instanceof ProviderError) {
    return { action: ACTIONS[error.kind], abortReason: error.kind, retryAfterMs: error.retryAfterMs };
  }
  // An unexpected error is our bug, not the message's fault: keep the message and retry later.
  return { action: 'release', abortReason: 'transport', retryAfterMs: null };
}

/** Backoff as data: base × 2^attempt, capped; a larger Retry-After wins. */
export function retryDelayMs(attempt: number, schedule: { baseMs: number; capMs: number }, retryAfterMs: number | null): number {
  const exponential = Math.min(schedule.capMs, schedule.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  return retryAfterMs !== null && retryAfterMs > exponential ? Math.min(retryAfterMs, schedule.capMs * 4) : exponential;
}
