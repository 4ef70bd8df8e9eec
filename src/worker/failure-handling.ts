import type { Logger } from '../log.js';
import type { ObserverProvider } from '../providers/types.js';
import { storageFaultOf, type StorageFault } from '../store/storage-fault.js';
import { decideFailure, retryDelayMs, type BackoffSchedule } from './failure-policy.js';
import type { LoopBatch, LoopQueue, LoopTelemetry } from './loop-types.js';
import type { ProviderGate } from './provider-gate.js';
import type { AbortReason, TurnRecord } from '../observer/turn-record.js';

export interface FailureContext {
  startedMs: number;
  nowMs: number;
  /** The worker is stopping: the batch goes back untouched and counts as aborted. */
  shutdown: boolean;
  /** This call was the provider gate's probe. */
  probe: boolean;
}

/** What the loop must do after a failure beyond the queue: hold every call until the next UTC day, or pause for the store. */
export interface FailureOutcome {
  storeFault: StorageFault | null;
  budgetHoldUntilMs: number | null;
}

/**
 * What a failed observer call does: the typed decision (failure-policy.ts) applied to the
 * provider's gate, the queue and the turn count, for the whole batch at once. A batch whose
 * release cannot be written (disk full) is remembered and released by the store probe; it is
 * never forgotten.
 */
export function createFailureHandler(deps: { queue: LoopQueue; telemetry: LoopTelemetry; log: Logger; backoff: BackoffSchedule }) {
  const { queue, log, telemetry } = deps;
  /** Claimed messages whose release failed to commit, with the time they may run again. */
  const unreleased = new Map<number, { notBefore: number; countAttempt: boolean }>();

  function handle(
    batch: LoopBatch,
    provider: Pick<ObserverProvider, 'name' | 'model'>,
    gate: ProviderGate,
    error: unknown,
    ctx: FailureContext,
  ): FailureOutcome {
    const { nowMs } = ctx;
    const ids = batch.messages.map((m) => m.id);
    const fault = storageFaultOf(error);
    const decision = fault ? ({ action: 'release', abortReason: 'transport', retryAfterMs: null } as const) : decideFailure(error);
    if (ctx.probe && decision.action !== 'provider_wait') gate.probeEnded();
    if (decision.action === 'budget_wait' && !ctx.shutdown) {
      // The call was never made: nothing failed, nothing is counted as a turn; the batch waits.
      // The pause is the budget's, held by this loop only: the rows go back due now, so a worker
      // restarted with a larger budget observes them at once (issue 35).
      log.warn(
        'observer paused: daily budget reached; events wait in the queue until the UTC day turns, or the worker restarts with a larger MEMTRACE_OBSERVER_BUDGET_TOKENS',
        { resume_at: new Date(decision.resumeAtMs).toISOString() },
      );
      return release(ids, nowMs, false, null, nowMs, fault, decision.resumeAtMs);
    }
    let abortReason: AbortReason = decision.action === 'budget_wait' ? 'shutdown' : decision.abortReason;
    let outcome: TurnRecord['outcome'] = 'error';
    let notBefore = nowMs;
    let confirm = false;
    const attempts = Math.max(...batch.messages.map((m) => m.attempts));
    if (ctx.shutdown) {
      abortReason = 'shutdown';
      outcome = 'aborted';
    } else if (decision.action === 'provider_wait') {
      // The wait is the provider's gate's, not the rows': they go back due now and the gate holds
      // them, so a login noticed at a session start (gate.expedite) is not kept waiting by them.
      const until = gate.failed(decision.reason, decision.retryAfterMs, nowMs);
      log.warn('provider asked us to wait; every session it observes holds its events until one probe call succeeds', {
        provider: provider.name,
        reason: decision.reason,
        next_attempt_at: new Date(until).toISOString(),
      });
    } else if (decision.action === 'release') {
      notBefore = nowMs + retryDelayMs(attempts, deps.backoff, decision.retryAfterMs);
      log.warn('observer call failed; batch released for retry', {
        session_id: batch.sessionId,
        message_ids: ids,
        reason: fault ?? abortReason,
        error: fault ? undefined : String(error),
        retry_at: new Date(notBefore).toISOString(),
      });
    } else if (decision.action === 'confirm') {
      confirm = true;
      log.warn('observer call can never succeed; batch dropped', { session_id: batch.sessionId, message_ids: ids, reason: abortReason });
    }
    if (!fault && !ctx.shutdown && !(error instanceof Error && ['ProviderError', 'CallTimeoutError', 'BudgetExhaustedError'].includes(error.name))) {
      telemetry.captureException(error, 'worker', nowMs);
    }
    const turn = failedTurn(batch, { outcome, abortReason, durationMs: Math.max(0, nowMs - ctx.startedMs), provider });
    if (confirm) {
      try {
        queue.transaction(() => {
          for (const id of ids) queue.confirm(id);
          telemetry.recordTurn(turn, nowMs);
        });
        return { storeFault: fault, budgetHoldUntilMs: null };
      } catch (storeError) {
        return remember(ids, notBefore, true, storeError, fault);
      }
    }
    // Shutdown releases without counting an attempt: the call did not fail, the worker stopped.
    return release(ids, notBefore, !ctx.shutdown, turn, nowMs, fault, null);
  }

  function release(
    ids: number[],
    notBefore: number,
    countAttempt: boolean,
    turn: TurnRecord | null,
    nowMs: number,
    fault: StorageFault | null,
    budgetHoldUntilMs: number | null,
  ): FailureOutcome {
    try {
      queue.transaction(() => {
        queue.releaseBatch(ids, notBefore, countAttempt);
        if (turn) telemetry.recordTurn(turn, nowMs);
      });
    } catch (storeError) {
      return { ...remember(ids, notBefore, countAttempt, storeError, fault), budgetHoldUntilMs };
    }
    return { storeFault: fault, budgetHoldUntilMs };
  }

  function remember(ids: number[], notBefore: number, countAttempt: boolean, storeError: unknown, fault: StorageFault | null): FailureOutcome {
    const storeFault = storageFaultOf(storeError) ?? fault ?? 'io_error';
    for (const id of ids) unreleased.set(id, { notBefore, countAttempt });
    log.error('could not release a failed batch; it is released once the store writes again', { message_ids: ids, error: String(storeError) });
    return { storeFault, budgetHoldUntilMs: null };
  }

  return {
    handle,
    /** Throws the store's error if it still cannot write; what was released is forgotten. */
    releaseUnreleased(nowMs: number): void {
      for (const [id, r] of unreleased) {
        queue.releaseBatch([id], Math.max(r.notBefore, nowMs), r.countAttempt);
        unreleased.delete(id);
      }
    },
    unreleasedCount: () => unreleased.size,
  };
}

function failedTurn(
  batch: LoopBatch,
  f: { outcome: TurnRecord['outcome']; abortReason: AbortReason; durationMs: number; provider: Pick<ObserverProvider, 'name' | 'model'> },
): TurnRecord {
  return {
    sessionId: batch.sessionId,
    messageIds: batch.messages.map((m) => m.id),
    events: batch.messages.filter((m) => m.kind === 'observation').length,
    outcome: f.outcome,
    parse: null,
    outputClass: null,
    abortReason: f.abortReason,
    observationsByType: {},
    observationsCreated: 0,
    summaryCreated: false,
    claimsRejected: 0,
    claimsUnverifiable: 0,
    fileClaimsRemoved: 0,
    tokens: null,
    costUsd: null,
    durationMs: f.durationMs,
    provider: f.provider.name,
    model: f.provider.model,
  };
}
