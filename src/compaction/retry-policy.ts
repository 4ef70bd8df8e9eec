import { backoffDelayMs, type BackoffSchedule } from '../backoff.js';
import type { SkipReason } from './escalation.js';

/** A project's scheduling state (persisted in compaction_state). Pure transitions over values. */
export interface ProjectCompactionState {
  attempts: number;
  nextAttemptAt: number;
  lastFailure: SkipReason | null;
  /** After an auth failure: resume as soon as the project has an observation newer than this (the provider works again). */
  waitForObservationAbove: number | null;
  /** Nothing (more) to do: idle until the project has an observation newer than this. */
  idleThroughObservationId: number | null;
}

export const INITIAL_STATE: ProjectCompactionState = {
  attempts: 0,
  nextAttemptAt: 0,
  lastFailure: null,
  waitForObservationAbove: null,
  idleThroughObservationId: null,
};

/** 5 min doubling, capped at 30 min (docs/compaction.md); a longer Retry-After wins, within the cap. */
export type RetrySchedule = BackoffSchedule;

/**
 * A failed step wrote nothing; when may the project try again. An auth failure waits for the
 * provider to recover (a newer observation proves the observer's calls succeed again), with a
 * probe at the cap in case no observation comes.
 */
export function afterFailure(
  state: ProjectCompactionState,
  reason: SkipReason,
  at: { nowMs: number; retryAfterMs: number | null; latestObservationId: number },
  schedule: RetrySchedule,
): ProjectCompactionState {
  if (reason === 'aborted' || reason === 'stale') return state;
  if (reason === 'auth') {
    return {
      attempts: state.attempts + 1,
      nextAttemptAt: at.nowMs + schedule.capMs,
      lastFailure: reason,
      waitForObservationAbove: at.latestObservationId,
      idleThroughObservationId: null,
    };
  }
  return {
    attempts: state.attempts + 1,
    nextAttemptAt: at.nowMs + backoffDelayMs(schedule, state.attempts, { ms: at.retryAfterMs }),
    lastFailure: reason,
    waitForObservationAbove: null,
    idleThroughObservationId: null,
  };
}

export function afterSuccess(): ProjectCompactionState {
  return INITIAL_STATE;
}

/** Within budget or nothing left to compact: terminal until new observations arrive, not a retry loop. */
export function afterIdle(latestObservationId: number): ProjectCompactionState {
  return { ...INITIAL_STATE, idleThroughObservationId: latestObservationId };
}

export function isDue(state: ProjectCompactionState, at: { nowMs: number; latestObservationId: number }): boolean {
  if (state.idleThroughObservationId !== null) return at.latestObservationId > state.idleThroughObservationId;
  if (state.waitForObservationAbove !== null && at.latestObservationId > state.waitForObservationAbove) return true;
  return at.nowMs >= state.nextAttemptAt;
}
