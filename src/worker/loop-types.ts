import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { TurnRecord } from '../observer/turn-record.js';
import type { ObserverProvider } from '../providers/types.js';
import type { StorageFault } from '../store/storage-fault.js';
import type { Timers } from '../timers.js';
import type { ProviderWaitStatus } from './provider-gate.js';

/** A claimed queue message as the loop sees it. */
export interface LoopMessage {
  id: number;
  sessionId: string;
  kind: 'observation' | 'summary';
  attempts: number;
}

/** One agent turn's messages (or a long turn's part), claimed together for one observer call. */
export interface LoopBatch {
  sessionId: string;
  messages: LoopMessage[];
}

/** A pending message as batching sees it (the store's PendingHead): order, kind, when it may run, its size for the observer. */
export interface QueuedHead {
  id: number;
  kind: 'observation' | 'summary';
  notBefore: number;
  createdAt: number;
  bytes: number;
}

/** The queue operations the loop needs; the SQLite queue implements them. */
export interface LoopQueue {
  /** Sessions with any queued message; read once at start. */
  sessionsWithWork(): string[];
  /**
   * Each session with a message queued after `afterId` and the id of its newest: what another
   * process queued shows as a newer id. Ids only grow, so this reads what came since, not the queue.
   */
  newestQueued(afterId: number): Map<string, number>;
  /** The newest id in the queue (0 when empty). */
  newestId(): number;
  /**
   * The session's next closed batch, claimed; or when its open batch may close, with the pending
   * messages that decision saw; or null when it has nothing pending. With `known` (those messages
   * as last returned, plus what was queued since), a batch that stays open is decided without
   * reading the store; only one that closes is read and claimed.
   */
  claimBatch(sessionId: string, nowMs: number, known?: readonly QueuedHead[]): { batch: LoopBatch } | { waitUntilMs: number; heads: QueuedHead[] } | null;
  /** Returns a batch's messages; `countAttempt: false` when the call never failed (a budget hold). */
  releaseBatch(ids: readonly number[], notBeforeMs: number, countAttempt: boolean): void;
  confirm(id: number): boolean;
  sessionHasWork(sessionId: string): boolean;
  /** Runs fn in one transaction so a failure and its count commit together. */
  transaction(fn: () => void): void;
  /** A tiny write that proves the store can write again after a fault. */
  probeWrite(nowMs: number): void;
  /** Whether another connection (another process) committed to the store since the last ask; the first ask says yes. */
  changedElsewhere(): boolean;
}

/** One observer call for a batch and the handling of its reply; returns the turn it recorded. */
export type RunTurn = (batch: LoopBatch, provider: ObserverProvider, signal: AbortSignal) => Promise<TurnRecord>;

export interface LoopTelemetry {
  recordTurn(turn: TurnRecord, nowMs: number): void;
  sessionEnded(sessionId: string, nowMs: number): void;
  captureException(error: unknown, stage: string, nowMs: number): void;
}

export type LoopTimers = Timers;

/** The loop gave up on a call that did not end within the configured timeout. */
export class CallTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`observer call did not end within ${timeoutMs} ms (MEMTRACE_PROVIDER_TIMEOUT_MS)`);
    this.name = 'CallTimeoutError';
  }
}

/** A call in flight as /health shows it. */
export interface CallInFlight {
  messageIds: number[];
  provider: string;
  ageMs: number;
  probe: boolean;
}

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
  inFlight: CallInFlight[];
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
