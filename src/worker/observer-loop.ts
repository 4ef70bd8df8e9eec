import { storageFaultOf, type StorageFault } from '../store/storage-fault.js';
import type { ObserverLoop, ObserverLoopDeps, QueuedHead } from './loop-types.js';
import { createObserverCalls, type ObserverCallsConfig } from './observer-calls.js';

export type { LoopStatus, ObserverLoop, ObserverLoopDeps } from './loop-types.js';

export interface ObserverLoopConfig extends ObserverCallsConfig {
  /** Calls in flight at once, across sessions. */
  concurrency: number;
  /** While the store cannot write, how often to try again. */
  storeProbeMs: number;
}

export const DEFAULT_LOOP_CONFIG: ObserverLoopConfig = {
  concurrency: 2,
  backoff: { baseMs: 5_000, capMs: 300_000 },
  authProbe: { baseMs: 30_000, capMs: 300_000 },
  callTimeoutMs: 60_000,
  storeProbeMs: 5_000,
};

/**
 * Scheduling: which session's batch goes next. One batch at a time per session (one agent turn,
 * docs/observer.md#batches), at most `concurrency` calls at once, round-robin across sessions;
 * nothing is claimed while the session's provider asked us to wait, the day's budget is spent or
 * the store cannot write. A call's own life (its deadline, a failure, the abort at shutdown) is
 * observer-calls.ts's, and what a failure does to its batch failure-handling.ts's. Every claimed
 * batch ends confirmed or released; none is left claimed except by a crash (undone on start) or
 * while the disk is full (released once it frees).
 */
export function createObserverLoop(config: ObserverLoopConfig, deps: ObserverLoopDeps): ObserverLoop {
  const { queue, clock, log, telemetry } = deps;
  const calls = createObserverCalls(config, {
    ...deps,
    ended(sessionId) {
      finishIfEnded(sessionId);
      wake(sessionId);
    },
    storeFaulted: (fault) => enterStoreFault(fault),
    budgetHeld(untilMs) {
      budgetHoldUntil = Math.max(budgetHoldUntil ?? 0, untilMs);
    },
  });
  const ending = new Set<string>();
  /** Sessions that may have work, in arrival order: a pass costs O(active sessions), not O(queue). */
  const withWork = new Set<string>();
  /**
   * Sessions whose open batch cannot close before this time (its oldest event's wait, or a
   * retry's backoff) unless something is queued for them, which wakes them by name: a pass
   * looks at the sessions that changed, not at every open batch on every event.
   */
  const waiting = new Map<string, number>();
  /**
   * A waiting session's pending messages as its last look read them, plus each one queued since
   * (the intake wakes the session with it): the next look decides on these in memory, and reads
   * the store only to claim a batch that closes. Dropped whenever the session changes otherwise.
   */
  const known = new Map<string, QueuedHead[]>();
  /** Sessions with work whose host no observer serves: asked again at each rescan. */
  const unobserved = new Set<string>();
  /**
   * The newest queue id the loop has accounted for: at load, every session with work is read;
   * after it, a rescan reads only what was queued since (with 100,000 messages queued, reading
   * every session's newest held the event loop 31 ms a tick).
   */
  let accountedUpTo = 0;
  let storeFault: { reason: StorageFault; sinceMs: number } | null = null;
  let budgetHoldUntil: number | null = null;
  let loaded = false;
  let timer: { cancel(): void } | null = null;
  let timerAt = Number.POSITIVE_INFINITY;
  let passQueued = false;
  /**
   * The sessions the next pass looks at; null: every session with work. An event queued for a
   * session changes nothing for any other, and a pass that walked every session with work (asking
   * each one's provider and gate) on every hook cost O(sessions waiting) per event. Any other
   * wake-up (a turn ended, a timer, a rescan, the store back) looks at all of them. A pass that
   * ends before it looks leaves the scope for the next one.
   */
  let scope: Set<string> | null = null;
  let stopping = false;

  function wake(sessionId?: string, queued?: QueuedHead): void {
    if (sessionId !== undefined) {
      withWork.add(sessionId);
      waiting.delete(sessionId);
      const heads = known.get(sessionId);
      if (heads !== undefined && queued !== undefined) heads.push(queued);
      else known.delete(sessionId);
    }
    if (sessionId !== undefined && queued !== undefined) scope?.add(sessionId);
    else scope = null;
    if (passQueued || stopping) return;
    // Many events arriving together share one pass.
    passQueued = true;
    setImmediate(() => {
      passQueued = false;
      pump();
    });
  }

  function pump(): void {
    if (stopping || !deps.observing()) return;
    try {
      const nowMs = clock.now();
      if (storeFault) {
        if (!probeStore(nowMs)) {
          arm(nowMs + config.storeProbeMs);
          return;
        }
        scope = null;
      }
      if (budgetHoldUntil !== null) {
        if (nowMs < budgetHoldUntil) {
          arm(budgetHoldUntil);
          return;
        }
        budgetHoldUntil = null;
        scope = null;
        log.info('a new UTC day: the observer budget has room again; observing resumes');
      }
      if (!loaded) {
        // The newest id first: what is queued between the two reads is then after it, for a rescan.
        const upTo = queue.newestId();
        for (const id of queue.sessionsWithWork()) withWork.add(id);
        accountedUpTo = upTo;
        loaded = true;
        scope = null;
      }
      const only = scope;
      scope = new Set();
      const sessions = only === null ? withWork : [...only].filter((id) => withWork.has(id));
      let nextDue = Number.POSITIVE_INFINITY;
      for (const sessionId of sessions) {
        if (calls.inFlight() >= config.concurrency) break;
        if (calls.has(sessionId)) continue;
        const waitsUntil = waiting.get(sessionId);
        if (waitsUntil !== undefined && waitsUntil > nowMs) {
          nextDue = Math.min(nextDue, waitsUntil);
          continue;
        }
        waiting.delete(sessionId);
        const provider = deps.providerFor(sessionId);
        if (!provider) {
          // No observer for this session's host: its events wait (a rescan looks again).
          withWork.delete(sessionId);
          unobserved.add(sessionId);
          continue;
        }
        const gate = calls.gate(provider.name);
        const admission = gate.admit(nowMs);
        if (!admission.go) {
          if (admission.untilMs !== null) nextDue = Math.min(nextDue, admission.untilMs);
          continue;
        }
        const claim = queue.claimBatch(sessionId, nowMs, known.get(sessionId));
        known.delete(sessionId);
        if (claim && 'batch' in claim) {
          // Round-robin: the session goes to the back of the line.
          withWork.delete(sessionId);
          withWork.add(sessionId);
          calls.start(claim.batch, provider, admission.probe, nowMs);
          continue;
        }
        if (admission.probe) gate.probeEnded();
        if (claim === null) withWork.delete(sessionId);
        else {
          known.set(sessionId, claim.heads);
          waiting.set(sessionId, claim.waitUntilMs);
          nextDue = Math.min(nextDue, claim.waitUntilMs);
        }
      }
      if (Number.isFinite(nextDue) && nextDue > nowMs) arm(nextDue);
    } catch (error) {
      // A background loop never throws; retry the pass later.
      const fault = storageFaultOf(error);
      if (fault) enterStoreFault(fault);
      else {
        log.error('observer loop pass failed', { error: String(error) });
        telemetry.captureException(error, 'worker', clock.now());
      }
      arm(clock.now() + (fault ? config.storeProbeMs : config.backoff.baseMs));
    }
  }

  function arm(atMs: number): void {
    if (timer && timerAt <= atMs) return;
    timer?.cancel();
    timerAt = atMs;
    timer = deps.timers.setTimeout(
      () => {
        timer = null;
        timerAt = Number.POSITIVE_INFINITY;
        scope = null;
        pump();
      },
      Math.max(0, atMs - clock.now()),
    );
  }

  function enterStoreFault(reason: StorageFault): void {
    if (!storeFault) log.error('the store cannot write (disk full or failing); claiming paused until a write succeeds', { reason });
    storeFault ??= { reason, sinceMs: clock.now() };
  }

  /** Releases what a failed write left claimed and proves the store writes again. */
  function probeStore(nowMs: number): boolean {
    try {
      calls.releaseUnreleased(nowMs);
      queue.probeWrite(nowMs);
    } catch (error) {
      if (!storageFaultOf(error)) log.warn('store probe failed', { error: String(error) });
      return false;
    }
    log.info('the store writes again; observing resumes', { after_ms: nowMs - (storeFault?.sinceMs ?? nowMs) });
    storeFault = null;
    return true;
  }

  function finishIfEnded(sessionId: string): void {
    if (!ending.has(sessionId) || calls.has(sessionId)) return;
    try {
      if (queue.sessionHasWork(sessionId)) return;
      ending.delete(sessionId);
      telemetry.sessionEnded(sessionId, clock.now());
    } catch (error) {
      log.error('could not finish an ended session', { session_id: sessionId, error: String(error) });
    }
  }

  function rescan(): void {
    // Only another process can queue without waking the session (this worker's writers all wake
    // it): then the sessions whose newest message is not the one the loop knows are read again,
    // not every waiting session (that held the event loop 120 ms at 5,000 of them).
    if (loaded && queue.changedElsewhere()) {
      for (const [sessionId, newest] of queue.newestQueued(accountedUpTo)) {
        accountedUpTo = Math.max(accountedUpTo, newest);
        withWork.add(sessionId);
        if (known.get(sessionId)?.at(-1)?.id === newest) continue;
        known.delete(sessionId);
        waiting.delete(sessionId);
      }
    }
    // An observer may have appeared for a host nobody observed.
    for (const id of unobserved) withWork.add(id);
    unobserved.clear();
    wake();
  }

  return {
    wake,
    sessionEnded(sessionId) {
      // Nothing is observed in this run, so the session's rollup has nothing to wait for.
      if (!deps.observing() || deps.providerFor(sessionId) === null) return telemetry.sessionEnded(sessionId, clock.now());
      ending.add(sessionId);
      finishIfEnded(sessionId);
    },
    rescan,
    retryRefused() {
      const expedited = calls.expediteRefused(clock.now());
      for (const provider of expedited) log.info('a session started: the provider that refused gets its probe call now', { provider });
      if (expedited.length > 0) rescan();
    },
    storeFailed(reason) {
      enterStoreFault(reason);
      arm(clock.now() + config.storeProbeMs);
    },
    storeRecovered() {
      if (!storeFault || calls.unreleasedCount() > 0) return;
      storeFault = null;
      wake();
    },
    status() {
      const nowMs = clock.now();
      return {
        observing: deps.observing(),
        inFlight: calls.calls(nowMs),
        providerWaits: calls.providerWaits(),
        budgetHold: budgetHoldUntil !== null && nowMs < budgetHoldUntil ? { until: new Date(budgetHoldUntil).toISOString() } : null,
        storeFault: storeFault ? { reason: storeFault.reason, since: new Date(storeFault.sinceMs).toISOString(), unreleased: calls.unreleasedCount() } : null,
      };
    },
    async stop(deadlineMs, options = {}) {
      stopping = true;
      timer?.cancel();
      timer = null;
      await calls.stop(deadlineMs, options);
    },
  };
}
