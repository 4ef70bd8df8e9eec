import type { TurnRecord } from '../observer/turn-record.js';

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
  /** A tiny write that proves the store can write again after a fault. */
  probeWrite(nowMs: number): void;
}

/** One observer call and the handling of its reply; returns the turn it recorded. */
export type RunTurn = (message: LoopMessage, signal: AbortSignal) => Promise<TurnRecord>;

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
