import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { ObserverProvider } from '../providers/types.js';
import type { StorageFault } from '../store/storage-fault.js';
import { createFailureHandler } from './failure-handling.js';
import type { BackoffSchedule } from './failure-policy.js';
import { createProviderGate, type ProviderGate, type ProviderWaitStatus } from './provider-gate.js';
import { CallTimeoutError, type CallInFlight, type LoopBatch, type LoopQueue, type LoopTelemetry, type LoopTimers, type RunTurn } from './loop-types.js';

export interface ObserverCallsConfig {
  /** Per-batch backoff (transport trouble), and the provider-wide wait when it is busy (429, 529). */
  backoff: BackoffSchedule;
  /** Provider-wide wait when it refuses us (auth, quota, a missing CLI): probe rarely. */
  authProbe: BackoffSchedule;
  /** A call that has not ended after this long is abandoned and its batch released. */
  callTimeoutMs: number;
}

export interface ObserverCallsDeps {
  queue: LoopQueue;
  runTurn: RunTurn;
  telemetry: LoopTelemetry;
  clock: Clock;
  log: Logger;
  timers: LoopTimers;
  /** A call ended, however: its session may have more work, or may be done. */
  ended(sessionId: string): void;
  /** A failed call's release could not be written: the store cannot write. */
  storeFaulted(fault: StorageFault): void;
  /** A call was refused for the day's budget: nothing is claimed before this time. */
  budgetHeld(untilMs: number): void;
}

/** After a hand-over's deadline, how long the calls then aborted get to release their batches. */
const SHUTDOWN_AFTER_FINISH_MS = 2_000;

/**
 * One observer call's life, for every call in flight: its provider's gate, the deadline, the abort
 * at shutdown, and what a failure does to its batch (failure-handling.ts). Which batch goes next
 * is the loop's (observer-loop.ts); this side says which sessions have a call and which providers
 * asked to wait.
 */
export function createObserverCalls(config: ObserverCallsConfig, deps: ObserverCallsDeps) {
  const { clock, log } = deps;
  const gates = new Map<string, { gate: ProviderGate; detail: string | null }>();
  const gateOf = (provider: string) => {
    let entry = gates.get(provider);
    if (!entry) {
      entry = { gate: createProviderGate({ busy: config.backoff, refused: config.authProbe }), detail: null };
      gates.set(provider, entry);
    }
    return entry;
  };
  const failures = createFailureHandler({ queue: deps.queue, telemetry: deps.telemetry, log, backoff: config.backoff });
  const busy = new Map<string, { controller: AbortController; batch: LoopBatch; provider: string; startedMs: number; probe: boolean }>();
  const settling = new Set<Promise<void>>();

  /**
   * The call gets callTimeoutMs; past it the batch is released and the slot freed even if a
   * provider ignores the abort (a host CLI's process group is killed). The turn processor checks
   * the signal before its transaction, so a late reply can never confirm a released batch.
   */
  async function run(batch: LoopBatch, provider: ObserverProvider, controller: AbortController, probe: boolean, startedMs: number): Promise<void> {
    let expire: { cancel(): void } | null = null;
    const timedOut = new Promise<never>((_, reject) => {
      expire = deps.timers.setTimeout(() => {
        const error = new CallTimeoutError(config.callTimeoutMs);
        controller.abort(error);
        reject(error);
      }, config.callTimeoutMs);
    });
    const stopped = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
    const turn = deps.runTurn(batch, provider, controller.signal);
    turn.catch(() => undefined); // a late failure after the deadline has nowhere to go
    const entry = gateOf(provider.name);
    try {
      await Promise.race([turn, timedOut, stopped]);
      entry.detail = null;
      if (entry.gate.succeeded()) log.info('provider calls succeed again; every session resumes', { provider: provider.name });
    } catch (error) {
      // Only the deadline and stop() abort a call: an abort that is not the deadline's is the shutdown's.
      const shutdown = controller.signal.aborted && !(controller.signal.reason instanceof CallTimeoutError);
      const detail = (error as { detail?: unknown } | null)?.detail;
      if (typeof detail === 'string') entry.detail = detail;
      const outcome = failures.handle(batch, provider, entry.gate, error, { startedMs, nowMs: clock.now(), shutdown, probe });
      if (outcome.storeFault) deps.storeFaulted(outcome.storeFault);
      if (outcome.budgetHoldUntilMs !== null) deps.budgetHeld(outcome.budgetHoldUntilMs);
    } finally {
      (expire as { cancel(): void } | null)?.cancel();
    }
  }

  /** Waits for every call in flight to settle, at most `ms`. */
  async function settled(ms: number): Promise<void> {
    let expire: { cancel(): void } | null = null;
    await Promise.race([
      Promise.allSettled([...settling]),
      new Promise<void>((resolve) => {
        expire = deps.timers.setTimeout(resolve, ms);
      }),
    ]);
    (expire as { cancel(): void } | null)?.cancel();
  }

  return {
    /** The gate of the provider: whether a call may go now (admit), and the probe's end. */
    gate: (provider: string) => gateOf(provider).gate,
    start(batch: LoopBatch, provider: ObserverProvider, probe: boolean, startedMs: number): void {
      const controller = new AbortController();
      busy.set(batch.sessionId, { controller, batch, provider: provider.name, startedMs, probe });
      const done = run(batch, provider, controller, probe, startedMs).finally(() => {
        busy.delete(batch.sessionId);
        settling.delete(done);
        deps.ended(batch.sessionId);
      });
      settling.add(done);
    },
    inFlight: () => busy.size,
    has: (sessionId: string) => busy.has(sessionId),
    calls: (nowMs: number): CallInFlight[] =>
      [...busy.values()].map((b) => ({
        messageIds: b.batch.messages.map((m) => m.id),
        provider: b.provider,
        ageMs: Math.max(0, nowMs - b.startedMs),
        probe: b.probe,
      })),
    providerWaits: (): Array<ProviderWaitStatus & { provider: string; detail: string | null }> =>
      [...gates.entries()].flatMap(([provider, entry]) => {
        const status = entry.gate.status();
        return status ? [{ ...status, provider, detail: entry.detail }] : [];
      }),
    /** The providers that refused get their probe now; returns their names. */
    expediteRefused(nowMs: number): string[] {
      return [...gates].filter(([, entry]) => entry.gate.expedite(nowMs)).map(([provider]) => provider);
    },
    /** Releases what a failed write left claimed; throws while the store still cannot write. */
    releaseUnreleased: (nowMs: number) => failures.releaseUnreleased(nowMs),
    unreleasedCount: () => failures.unreleasedCount(),
    /**
     * Aborts every call in flight (their batches are released) and waits at most deadlineMs. With
     * `finishCalls` (a hand-over to a newer version) the calls get the deadline to finish first,
     * so none is cut off and paid again by the next worker; the rest are aborted after it.
     */
    async stop(deadlineMs: number, options: { finishCalls?: boolean } = {}): Promise<void> {
      if (options.finishCalls && settling.size > 0) {
        await settled(deadlineMs);
        if (busy.size > 0) log.warn('calls still in flight at the hand-over deadline are released', { calls: busy.size });
      }
      for (const b of busy.values()) b.controller.abort();
      if (settling.size === 0) return;
      await settled(options.finishCalls ? SHUTDOWN_AFTER_FINISH_MS : deadlineMs);
    },
  };
}
