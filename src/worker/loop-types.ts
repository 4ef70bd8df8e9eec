import type { TurnRecord } from '../observer/turn-record.js';
import type { ObserverProvider } from '../providers/types.js';

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
  /** Each session with a queued message and the id of its newest: what another process queued shows as a newer id. */
  newestQueued(): Map<string, number>;
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

export type { Timers as LoopTimers } from '../timers.js';

/** The loop gave up on a call that did not end within the configured timeout. */
export class CallTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`observer call did not end within ${timeoutMs} ms (MEMTRACE_PROVIDER_TIMEOUT_MS)`);
    this.name = 'CallTimeoutError';
  }
}
