import type { Logger } from '../log.js';
import type { ObserverProvider } from '../providers/types.js';
import { storageFaultOf, type StorageFault } from '../store/storage-fault.js';
import { decideFailure, retryDelayMs, type BackoffSchedule } from './failure-policy.js';
import type { LoopMessage, LoopQueue, LoopTelemetry } from './loop-types.js';
import type { ProviderGate } from './provider-gate.js';
import type { AbortReason, TurnRecord } from '../observer/turn-record.js';

export interface FailureContext {
  startedMs: number;
  nowMs: number;
  /** The worker is stopping: the message goes back untouched and counts as aborted. */
  shutdown: boolean;
  /** This call was the provider gate's probe. */
  probe: boolean;
}

/**
 * What a failed observer call does: the typed decision (failure-policy.ts) applied to the
 * provider gate, the queue and the turn count. A message whose release cannot be written
 * (disk full) is remembered and released by the store probe; it is never forgotten.
 */
export function createFailureHandler(deps: {
  queue: LoopQueue;
  gate: ProviderGate;
  telemetry: LoopTelemetry;
  log: Logger;
  provider: Pick<ObserverProvider, 'name' | 'model'>;
  backoff: BackoffSchedule;
}) {
  const { queue, gate, log, telemetry } = deps;
  /** Claimed messages whose release failed to commit, with the time they may run again. */
  const unreleased = new Map<number, number>();

  function handle(message: LoopMessage, error: unknown, ctx: FailureContext): { storeFault: StorageFault | null } {
    const { nowMs } = ctx;
    const fault = storageFaultOf(error);
    const decision = fault ? ({ action: 'release', abortReason: 'transport', retryAfterMs: null } as const) : decideFailure(error);
    let abortReason: AbortReason = decision.abortReason;
    let outcome: TurnRecord['outcome'] = 'error';
    let notBefore = nowMs;
    let confirm = false;
    if (ctx.probe && decision.action !== 'provider_wait') gate.probeEnded();
    if (ctx.shutdown) {
      abortReason = 'shutdown';
      outcome = 'aborted';
    } else if (decision.action === 'provider_wait') {
      notBefore = gate.failed(decision.reason, decision.retryAfterMs, nowMs);
      log.warn('provider asked us to wait; every session holds its messages until one probe call succeeds', {
        reason: decision.reason,
        next_attempt_at: new Date(notBefore).toISOString(),
      });
    } else if (decision.action === 'release') {
      notBefore = nowMs + retryDelayMs(message.attempts, deps.backoff, decision.retryAfterMs);
      log.warn('observer call failed; message released for retry', {
        session_id: message.sessionId,
        message_id: message.id,
        reason: fault ?? abortReason,
        error: fault ? undefined : String(error),
        retry_at: new Date(notBefore).toISOString(),
      });
    } else {
      confirm = true;
      log.warn('observer call can never succeed; message dropped', { session_id: message.sessionId, message_id: message.id, reason: abortReason });
    }
    if (!fault && !ctx.shutdown && !(error instanceof Error && (error.name === 'ProviderError' || error.name === 'CallTimeoutError'))) {
      telemetry.captureException(error, 'worker', nowMs);
    }
    const turn = failedTurn(message, { outcome, abortReason, durationMs: Math.max(0, nowMs - ctx.startedMs), provider: deps.provider });
    try {
      queue.transaction(() => {
        if (confirm) queue.confirm(message.id);
        else queue.release(message.id, notBefore);
        telemetry.recordTurn(turn, nowMs);
      });
    } catch (storeError) {
      const storeFault = storageFaultOf(storeError) ?? fault ?? 'io_error';
      unreleased.set(message.id, notBefore);
      log.error('could not release a failed message; it is released once the store writes again', { message_id: message.id, error: String(storeError) });
      return { storeFault };
    }
    return { storeFault: fault };
  }

  return {
    handle,
    /** Throws the store's error if it still cannot write; what was released is forgotten. */
    releaseUnreleased(nowMs: number): void {
      for (const [id, notBefore] of unreleased) {
        queue.release(id, Math.max(notBefore, nowMs));
        unreleased.delete(id);
      }
    },
    unreleasedCount: () => unreleased.size,
  };
}

function failedTurn(
  message: LoopMessage,
  f: { outcome: TurnRecord['outcome']; abortReason: AbortReason; durationMs: number; provider: Pick<ObserverProvider, 'name' | 'model'> },
): TurnRecord {
  return {
    sessionId: message.sessionId,
    messageId: message.id,
    kind: message.kind,
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
