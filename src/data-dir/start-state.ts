import fs from 'node:fs';
import path from 'node:path';
import { backoffDelayMs, type BackoffSchedule } from '../backoff.js';
import { openPrivateFile, writePrivateFileAtomic } from './private-files.js';

/**
 * Starting the worker, as every hook of every agent on this data dir sees it: DATA_DIR/worker-start.json.
 * A hook that finds no worker may start one only when the last attempts allow it, so a worker
 * that cannot start (a damaged store, a full disk, a socket it cannot bind, a bad setting) costs
 * one attempt per step of START_BACKOFF, not one per hook. The failing worker writes why, and
 * what to do, for `worker status`, /health and the next SessionStart. The file exists only while
 * there is something to say: a worker that has run for STABLE_AFTER_MS removes it.
 */
const START_STATE_FILE = 'worker-start.json';
const CLAIM_FILE = 'worker-start.claim';
/** 15 s (a start takes a few), then doubling to half an hour. */
export const START_BACKOFF: BackoffSchedule = { baseMs: 15_000, capMs: 30 * 60_000 };
/** A worker that ran this long started well: earlier failures no longer count. */
export const STABLE_AFTER_MS = 60_000;
/** A claim older than this was left by a hook that died while deciding. */
const CLAIM_STALE_MS = 10_000;

export type StartFailureReason =
  | 'store_corrupt'
  | 'store_newer'
  | 'store_unreadable'
  | 'disk_full'
  | 'data_dir'
  | 'socket'
  | 'port'
  | 'config'
  | 'take_over'
  | 'exited'
  | 'other';

export interface StartFailure {
  reason: StartFailureReason;
  /** One line: what is wrong. */
  detail: string;
  /** One line: what the user does about it. */
  fix: string;
  /** The memtrace version that failed. */
  version: string;
  at: string;
}

export interface StartState {
  /** Start attempts since the worker last ran well. */
  attempts: number;
  last_attempt_at: string | null;
  /** No hook starts a worker before this time. */
  next_attempt_at: string | null;
  last_error: StartFailure | null;
  /** Set by a worker that started; the file goes once it has run STABLE_AFTER_MS. */
  running_since: string | null;
}

const EMPTY: StartState = { attempts: 0, last_attempt_at: null, next_attempt_at: null, last_error: null, running_since: null };

/** Whether a hook may start a worker now. Pure. */
export function startAttemptDue(state: StartState | null, nowMs: number): boolean {
  return state?.next_attempt_at == null || nowMs >= Date.parse(state.next_attempt_at);
}

/** The state after one more attempt at `nowMs`: the next one waits a step longer. Pure. */
export function withAttempt(state: StartState | null, nowMs: number): StartState {
  const attempts = (state?.attempts ?? 0) + 1;
  return {
    ...(state ?? EMPTY),
    attempts,
    last_attempt_at: new Date(nowMs).toISOString(),
    next_attempt_at: new Date(nowMs + backoffDelayMs(START_BACKOFF, attempts - 1)).toISOString(),
    running_since: null,
  };
}

/**
 * One line saying what keeps the worker from running and what to do about it, for the next
 * SessionStart's context and `worker status`; null when nothing does. Pure.
 */
export function startProblemLine(state: StartState | null, dataDir: string, nowMs: number): string | null {
  if (state === null || state.running_since !== null) return null;
  const nextMs = state.next_attempt_at === null ? Number.NaN : Date.parse(state.next_attempt_at);
  const next = nextMs > nowMs ? `; next try at ${new Date(nextMs).toISOString().slice(11, 19)} UTC, or now with 'memtrace worker start'` : '';
  const error = state.last_error;
  if (error !== null)
    return `memtrace's worker (${error.version}) cannot start: ${error.detail}. To fix: ${error.fix}. Hook events are kept meanwhile and stored once it runs${next}.`;
  if (state.attempts >= 2)
    return `memtrace's worker did not start after ${state.attempts} attempts and left no reason: see ${path.join(dataDir, 'logs', 'worker.out')}${next}.`;
  return null;
}

/** What DATA_DIR/worker-start.json says; null when there is nothing to say (or nothing readable). */
export function readStartState(dataDir: string): StartState | null {
  try {
    const value = JSON.parse(fs.readFileSync(path.join(dataDir, START_STATE_FILE), 'utf8')) as Partial<StartState>;
    if (typeof value.attempts !== 'number') return null;
    return { ...EMPTY, ...value };
  } catch {
    return null;
  }
}

function writeState(dataDir: string, state: StartState): void {
  writePrivateFileAtomic(path.join(dataDir, START_STATE_FILE), `${JSON.stringify(state)}\n`);
}

/**
 * Claims the next start attempt for the caller: the state after it when one is due (and no other
 * hook is deciding at this moment), else null. Concurrent hooks decide one at a time through an
 * exclusive claim file, so a burst of hooks while the worker is down makes one attempt.
 */
export function claimStartAttempt(dataDir: string, nowMs: number, options: { force?: boolean } = {}): StartState | null {
  return withClaim(dataDir, nowMs, () => {
    const state = readStartState(dataDir);
    if (!options.force && !startAttemptDue(state, nowMs)) return null;
    const next = withAttempt(state, nowMs);
    writeState(dataDir, next);
    return next;
  });
}

/** The worker could not start: why and what to do, kept for every hook and `worker status`. */
export function recordStartFailure(dataDir: string, failure: StartFailure): void {
  const state = readStartState(dataDir);
  writeState(dataDir, { ...(state ?? withAttempt(null, Date.parse(failure.at))), last_error: failure, running_since: null });
}

/** A worker started: its attempts still count (a crash right after start backs off too) until it has run STABLE_AFTER_MS. */
export function recordWorkerRunning(dataDir: string, nowMs: number): void {
  const state = readStartState(dataDir);
  if (state === null) return;
  writeState(dataDir, { ...state, last_error: null, running_since: new Date(nowMs).toISOString() });
}

/** The worker has run well: nothing left to say. */
export function clearStartState(dataDir: string): void {
  fs.rmSync(path.join(dataDir, START_STATE_FILE), { force: true });
}

function withClaim<T>(dataDir: string, nowMs: number, decide: () => T): T | null {
  const file = path.join(dataDir, CLAIM_FILE);
  let fd: number;
  try {
    fd = openPrivateFile(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (!claimIsStale(file, nowMs)) return null;
    fs.rmSync(file, { force: true });
    try {
      fd = openPrivateFile(file, 'wx');
    } catch {
      return null;
    }
  }
  try {
    return decide();
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
}

function claimIsStale(file: string, nowMs: number): boolean {
  try {
    return nowMs - fs.statSync(file).mtimeMs > CLAIM_STALE_MS;
  } catch {
    return true;
  }
}
