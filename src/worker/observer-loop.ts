import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { ObserverProvider } from '../providers/types.js';
import { storageFaultOf, type StorageFault } from '../store/storage-fault.js';
import { createFailureHandler } from './failure-handling.js';
import type { BackoffSchedule } from './failure-policy.js';
import { createProviderGate, type ProviderGate, type ProviderWaitStatus } from './provider-gate.js';
import { CallTimeoutError, type LoopBatch, type LoopQueue, type LoopTelemetry, type LoopTimers, type QueuedHead, type RunTurn } from './loop-types.js';

export type { LoopQueue, LoopTelemetry, LoopTimers, RunTurn } from './loop-types.js';

export interface ObserverLoopConfig {
  concurrency: number;
  /** Per-batch backoff (transport trouble), and the provider-wide wait when it is busy (429, 529). */
  backoff: BackoffSchedule;
  /** Provider-wide wait when it refuses us (auth, quota, a missing CLI): probe rarely. */
  authProbe: BackoffSchedule;
  /** A call that has not ended after this long is abandoned and its batch released. */
  callTimeoutMs: number;
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

export interface ObserverLoopDeps {
  queue: LoopQueue;
  runTurn: RunTurn;
  /** The observer of a session (its host's CLI, or the one configured provider); null: not observed, its events wait. */
  providerFor(sessionId: string): ObserverProvider | null;
  /** False when nothing can observe (provider `none`): nothing is claimed at all. Asked each pass: an agent CLI may appear. */
  observing(): boolean;
  telemetry: LoopTelemetry;
  clock: Clock;
  log: Logger;
  timers: LoopTimers;
}

export interface LoopStatus {
  /** False with provider `none`: events are kept, nothing is claimed. */
  observing: boolean;
  inFlight: Array<{ messageIds: number[]; provider: string; ageMs: number; probe: boolean }>;
  providerWaits: Array<ProviderWaitStatus & { provider: string; detail: string | null }>;
  /** Set while the day's observer budget has no room: nothing is claimed until then. */
  budgetHold: { until: string } | null;
  storeFault: { reason: StorageFault; since: string; unreleased: number } | null;
}

export interface ObserverLoop {
  /**
   * Something was enqueued for the session (or, without one, may have become due): look for work.
   * `queued`: the message just queued, when it is the only change (the intake's case).
   */
  wake(sessionId?: string, queued?: QueuedHead): void;
  /** The session ended: its rollup is flushed once its queued work is done. */
  sessionEnded(sessionId: string): void;
  /**
   * Looks again at every session: the sessions no observer served (one may have appeared), and,
   * when another process wrote to the store (`memtrace mine`), which sessions have queued work.
   */
  rescan(): void;
  /** A session started: a provider that refused (not logged in, CLI missing) gets its probe now. */
  retryRefused(): void;
  /** A write elsewhere (the HTTP API) failed for lack of space: hold claiming until a write succeeds. */
  storeFailed(reason: StorageFault): void;
  /** A write elsewhere succeeded: the store is usable again. */
  storeRecovered(): void;
  status(): LoopStatus;
  /**
   * Stops claiming, aborts calls in flight (their batches are released), waits at most deadlineMs.
   * With `finishCalls` (a hand-over to a newer version) calls in flight are let finish within the
   * deadline instead, so none is cut off and paid again by the next worker; the rest are aborted.
   */
  stop(deadlineMs: number, options?: { finishCalls?: boolean }): Promise<void>;
}

/**
 * Scheduling: which session's batch goes next. One batch at a time per session (one agent turn,
 * docs/observer.md#batches), at most `concurrency` calls at once, round-robin across sessions;
 * nothing is claimed while the session's provider asked us to wait, the day's budget is spent or
 * the store cannot write. What a failure does is decided in failure-handling.ts. Every claimed
 * batch ends confirmed or released; none is left claimed except by a crash (undone on start) or
 * while the disk is full (released once it frees).
 */
/** After a hand-over's deadline, how long the calls then aborted get to release their batches. */
const SHUTDOWN_AFTER_FINISH_MS = 2_000;

export function createObserverLoop(config: ObserverLoopConfig, deps: ObserverLoopDeps): ObserverLoop {
  const { queue, clock, log, telemetry } = deps;
  const gates = new Map<string, { gate: ProviderGate; detail: string | null }>();
  const gateOf = (provider: string) => {
    let entry = gates.get(provider);
    if (!entry) {
      entry = { gate: createProviderGate({ busy: config.backoff, refused: config.authProbe }), detail: null };
      gates.set(provider, entry);
    }
    return entry;
  };
  const failures = createFailureHandler({ queue, telemetry, log, backoff: config.backoff });
  const busy = new Map<string, { controller: AbortController; batch: LoopBatch; provider: string; startedMs: number; probe: boolean }>();
  const ending = new Set<string>();
  const settling = new Set<Promise<void>>();
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
        for (const id of queue.sessionsWithWork()) withWork.add(id);
        loaded = true;
        scope = null;
      }
      const only = scope;
      scope = new Set();
      const sessions = only === null ? withWork : [...only].filter((id) => withWork.has(id));
      let nextDue = Number.POSITIVE_INFINITY;
      for (const sessionId of sessions) {
        if (busy.size >= config.concurrency) break;
        if (busy.has(sessionId)) continue;
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
        const { gate } = gateOf(provider.name);
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
          start(claim.batch, provider, admission.probe, nowMs);
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

  function start(batch: LoopBatch, provider: ObserverProvider, probe: boolean, startedMs: number): void {
    const controller = new AbortController();
    busy.set(batch.sessionId, { controller, batch, provider: provider.name, startedMs, probe });
    const done = run(batch, provider, controller, probe, startedMs).finally(() => {
      busy.delete(batch.sessionId);
      settling.delete(done);
      finishIfEnded(batch.sessionId);
      wake(batch.sessionId);
    });
    settling.add(done);
  }

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
      const shutdown = stopping && controller.signal.aborted && !(controller.signal.reason instanceof CallTimeoutError);
      const detail = (error as { detail?: unknown } | null)?.detail;
      if (typeof detail === 'string') entry.detail = detail;
      const outcome = failures.handle(batch, provider, entry.gate, error, { startedMs, nowMs: clock.now(), shutdown, probe });
      if (outcome.storeFault) enterStoreFault(outcome.storeFault);
      if (outcome.budgetHoldUntilMs !== null) budgetHoldUntil = Math.max(budgetHoldUntil ?? 0, outcome.budgetHoldUntilMs);
    } finally {
      (expire as { cancel(): void } | null)?.cancel();
    }
  }

  function enterStoreFault(reason: StorageFault): void {
    if (!storeFault) log.error('the store cannot write (disk full or failing); claiming paused until a write succeeds', { reason });
    storeFault ??= { reason, sinceMs: clock.now() };
  }

  /** Releases what a failed write left claimed and proves the store writes again. */
  function probeStore(nowMs: number): boolean {
    try {
      failures.releaseUnreleased(nowMs);
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
    if (!ending.has(sessionId) || busy.has(sessionId)) return;
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
      for (const [sessionId, newest] of queue.newestQueued()) {
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

  const waits = () =>
    [...gates.entries()].flatMap(([provider, entry]) => {
      const status = entry.gate.status();
      return status ? [{ ...status, provider, detail: entry.detail }] : [];
    });

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
      const nowMs = clock.now();
      let any = false;
      for (const [provider, entry] of gates)
        if (entry.gate.expedite(nowMs)) {
          any = true;
          log.info('a session started: the provider that refused gets its probe call now', { provider });
        }
      if (any) rescan();
    },
    storeFailed(reason) {
      enterStoreFault(reason);
      arm(clock.now() + config.storeProbeMs);
    },
    storeRecovered() {
      if (!storeFault || failures.unreleasedCount() > 0) return;
      storeFault = null;
      wake();
    },
    status() {
      const nowMs = clock.now();
      const all = waits();
      return {
        observing: deps.observing(),
        inFlight: [...busy.values()].map((b) => ({
          messageIds: b.batch.messages.map((m) => m.id),
          provider: b.provider,
          ageMs: Math.max(0, nowMs - b.startedMs),
          probe: b.probe,
        })),
        providerWaits: all,
        budgetHold: budgetHoldUntil !== null && nowMs < budgetHoldUntil ? { until: new Date(budgetHoldUntil).toISOString() } : null,
        storeFault: storeFault
          ? { reason: storeFault.reason, since: new Date(storeFault.sinceMs).toISOString(), unreleased: failures.unreleasedCount() }
          : null,
      };
    },
    async stop(deadlineMs, options = {}) {
      stopping = true;
      timer?.cancel();
      timer = null;
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
