import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { ObserverProvider } from '../providers/types.js';
import { decideFailure, retryDelayMs } from './failure-policy.js';
import type { AbortReason, TurnRecord } from './turn-record.js';

/** A claimed queue message as the loop sees it. */
export interface LoopMessage {
  id: number;
  sessionId: string;
  kind: 'observation' | 'summary';
  attempts: number;
}

/** The queue operations the loop needs; the SQLite queue implements them. */
export interface LoopQueue {
  /** Sessions with any queued message; read once at start. */
  sessionsWithWork(): string[];
  claimNext(sessionId: string, nowMs: number): LoopMessage | null;
  release(id: number, notBeforeMs: number): boolean;
  confirm(id: number): boolean;
  /** When the session's next pending message is due; null if it has none. */
  nextDueAt(sessionId: string): number | null;
  sessionHasWork(sessionId: string): boolean;
  /** Runs fn in one transaction so a failure and its count commit together. */
  transaction(fn: () => void): void;
}

/** One observer call and the handling of its reply; returns the turn it recorded. */
export type RunTurn = (message: LoopMessage, signal: AbortSignal) => Promise<TurnRecord>;

export interface LoopTelemetry {
  recordTurn(turn: TurnRecord, nowMs: number): void;
  sessionEnded(sessionId: string, nowMs: number): void;
  captureException(error: unknown, stage: string, nowMs: number): void;
}

export interface LoopTimers {
  /** Must not keep the process alive (unref'd). */
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

export interface ObserverLoopConfig {
  concurrency: number;
  backoff: { baseMs: number; capMs: number };
  authProbe: { baseMs: number; capMs: number };
}

export const DEFAULT_LOOP_CONFIG: ObserverLoopConfig = {
  concurrency: 2,
  backoff: { baseMs: 5_000, capMs: 300_000 },
  authProbe: { baseMs: 30_000, capMs: 300_000 },
};

export interface ObserverLoopDeps {
  queue: LoopQueue;
  runTurn: RunTurn;
  provider: Pick<ObserverProvider, 'name' | 'model'>;
  telemetry: LoopTelemetry;
  clock: Clock;
  log: Logger;
  timers: LoopTimers;
}

export interface ObserverLoop {
  /** Something was enqueued for the session (or, without one, may have become due): look for work. */
  wake(sessionId?: string): void;
  /** The session ended: its rollup is flushed once its queued work is done. */
  sessionEnded(sessionId: string): void;
  status(): { inFlight: number; pausedSessions: string[] };
  /** Stops claiming, aborts calls in flight (their messages are released), waits at most deadlineMs. */
  stop(deadlineMs: number): Promise<void>;
}

/**
 * Claims one message at a time per session, at most `concurrency` observer calls at once
 * across sessions. Every claimed message ends confirmed (handled, or impossible) or released
 * (retry later); none is left claimed except by a crash, which the store undoes on start.
 */
export function createObserverLoop(config: ObserverLoopConfig, deps: ObserverLoopDeps): ObserverLoop {
  const { queue, clock, log, telemetry } = deps;
  const busy = new Map<string, AbortController>();
  const paused = new Map<string, { attempts: number; untilMs: number }>();
  const ending = new Set<string>();
  const settling = new Set<Promise<void>>();
  /** Sessions that may have work, in arrival order: a pass costs O(active sessions), not O(queue). */
  const withWork = new Set<string>();
  let loaded = false;
  let timer: { cancel(): void } | null = null;
  let timerAt = Number.POSITIVE_INFINITY;
  let passQueued = false;
  let stopping = false;

  function wake(sessionId?: string): void {
    if (sessionId !== undefined) withWork.add(sessionId);
    if (passQueued || stopping) return;
    // Many events arriving together share one pass.
    passQueued = true;
    setImmediate(() => {
      passQueued = false;
      pump();
    });
  }

  function pump(): void {
    if (stopping) return;
    try {
      if (!loaded) {
        for (const id of queue.sessionsWithWork()) withWork.add(id);
        loaded = true;
      }
      const nowMs = clock.now();
      let nextDue = Number.POSITIVE_INFINITY;
      for (const sessionId of withWork) {
        if (busy.size >= config.concurrency) break;
        if (busy.has(sessionId)) continue;
        const pause = paused.get(sessionId);
        if (pause && pause.untilMs > nowMs) {
          nextDue = Math.min(nextDue, pause.untilMs);
          continue;
        }
        const message = queue.claimNext(sessionId, nowMs);
        if (message) {
          // Round-robin: the session goes to the back of the line.
          withWork.delete(sessionId);
          withWork.add(sessionId);
          start(message);
          continue;
        }
        const due = queue.nextDueAt(sessionId);
        if (due === null) withWork.delete(sessionId);
        else nextDue = Math.min(nextDue, due);
      }
      if (Number.isFinite(nextDue) && nextDue > nowMs) arm(nextDue);
    } catch (error) {
      // A background loop never throws; retry the pass later.
      log.error('observer loop pass failed', { error: String(error) });
      telemetry.captureException(error, 'worker', clock.now());
      arm(clock.now() + config.backoff.baseMs);
    }
  }

  function arm(atMs: number): void {
    if (timer && timerAt <= atMs) return;
    timer?.cancel();
    timerAt = atMs;
    timer = deps.timers.setTimeout(() => {
      timer = null;
      timerAt = Number.POSITIVE_INFINITY;
      pump();
    }, Math.max(0, atMs - clock.now()));
  }

  function start(message: LoopMessage): void {
    const controller = new AbortController();
    busy.set(message.sessionId, controller);
    const done = run(message, controller.signal).finally(() => {
      busy.delete(message.sessionId);
      settling.delete(done);
      finishIfEnded(message.sessionId);
      wake(message.sessionId);
    });
    settling.add(done);
  }

  async function run(message: LoopMessage, signal: AbortSignal): Promise<void> {
    const startedMs = clock.now();
    try {
      await deps.runTurn(message, signal);
      if (paused.delete(message.sessionId)) log.info('session resumed: observer calls succeed again', { session_id: message.sessionId });
    } catch (error) {
      fail(message, error, startedMs, signal.aborted && stopping);
    }
  }

  function fail(message: LoopMessage, error: unknown, startedMs: number, shutdown: boolean): void {
    const nowMs = clock.now();
    const decision = decideFailure(error);
    let abortReason: AbortReason = decision.abortReason;
    let outcome: TurnRecord['outcome'] = 'error';
    let notBefore = nowMs;
    let confirm = false;
    if (shutdown) {
      abortReason = 'shutdown';
      outcome = 'aborted';
    } else if (decision.action === 'pause') {
      const state = paused.get(message.sessionId) ?? { attempts: 0, untilMs: 0 };
      notBefore = nowMs + retryDelayMs(state.attempts, config.authProbe, decision.retryAfterMs);
      // The whole session waits, not just this message: one probe call at notBefore.
      paused.set(message.sessionId, { attempts: state.attempts + 1, untilMs: notBefore });
      log.warn('session paused: the provider refused our credentials; messages are kept', {
        session_id: message.sessionId,
        probe_at: new Date(notBefore).toISOString(),
      });
    } else if (decision.action === 'release') {
      notBefore = nowMs + retryDelayMs(message.attempts, config.backoff, decision.retryAfterMs);
      log.warn('observer call failed; message released for retry', {
        session_id: message.sessionId,
        message_id: message.id,
        reason: abortReason,
        retry_at: new Date(notBefore).toISOString(),
      });
    } else {
      confirm = true;
      log.warn('observer call can never succeed; message dropped', { session_id: message.sessionId, message_id: message.id, reason: abortReason });
    }
    if (!(error instanceof Error && error.name === 'ProviderError') && !shutdown) {
      telemetry.captureException(error, 'worker', nowMs);
    }
    const turn: TurnRecord = {
      sessionId: message.sessionId,
      messageId: message.id,
      kind: message.kind,
      outcome,
      parse: null,
      outputClass: null,
      abortReason,
      observationsByType: {},
      observationsCreated: 0,
      summaryCreated: false,
      claimsRejected: 0,
      tokens: null,
      costUsd: null,
      durationMs: Math.max(0, nowMs - startedMs),
      provider: deps.provider.name,
      model: deps.provider.model,
    };
    try {
      queue.transaction(() => {
        if (confirm) queue.confirm(message.id);
        else queue.release(message.id, notBefore);
        telemetry.recordTurn(turn, nowMs);
      });
    } catch (storeError) {
      // The message stays claimed; the next start returns it to pending. Nothing is lost.
      log.error('could not release a failed message', { message_id: message.id, error: String(storeError) });
    }
  }

  function finishIfEnded(sessionId: string): void {
    if (!ending.has(sessionId) || busy.has(sessionId)) return;
    try {
      if (queue.sessionHasWork(sessionId)) return;
      ending.delete(sessionId);
      telemetry.sessionEnded(sessionId, clock.now());
    } catch (error) {
      log.error('could not finish an ended session', { session_id: sessionId, error: String(error) });
    }
  }

  return {
    wake,
    sessionEnded(sessionId) {
      ending.add(sessionId);
      finishIfEnded(sessionId);
    },
    status: () => ({ inFlight: busy.size, pausedSessions: [...paused.keys()] }),
    async stop(deadlineMs) {
      stopping = true;
      timer?.cancel();
      timer = null;
      for (const controller of busy.values()) controller.abort();
      if (settling.size === 0) return;
      let expire: { cancel(): void } | null = null;
      await Promise.race([
        Promise.allSettled([...settling]),
        new Promise<void>((resolve) => {
          expire = deps.timers.setTimeout(resolve, deadlineMs);
        }),
      ]);
      (expire as { cancel(): void } | null)?.cancel();
    },
  };
}
