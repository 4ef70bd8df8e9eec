import type { Hono } from 'hono';
import { isSpooledHookEvent, listSpool, readSpooled, removeSpooled, setAsideUnreadable, type SpoolEntry } from '../data-dir/spool.js';
import type { Logger } from '../log.js';
import { isStoreBusy } from '../store/brief-transaction.js';
import { storageFaultOf } from '../store/storage-fault.js';
import type { ReplayOutcome } from './busy-spill.js';
import type { HostIntake } from './host-intake.js';

export interface SpoolReplayDeps {
  dataDir: string;
  intake: HostIntake;
  /** The HTTP app, for entries a 0.2.0 hook wrote (an HTTP call each). */
  app: Hono;
  port(): number;
  token: string;
  log: Logger;
  nowMs: () => number;
  /** A spooled event was replayed (it had been spooled for `failure`), or could not be read at all. */
  replayed(entry: { host: string; event: string; via: string; failure: string }, nowMs: number): void;
  unreadable(nowMs: number): void;
}

/**
 * Replays spooled hook events, oldest first, through the same mapping as live ones (same
 * validation, same dedup by tool id, so a replay after a crash mid-pass is not stored twice).
 * An event the store cannot take now (a full disk) stays for the next pass, and so does every
 * later one, to keep their order; so does one that finds the store's write lock held by another
 * process (an import, a forget): the worker's replays do not wait for it (busy-spill.ts tries
 * again). An event that can never be read is moved aside and counted. Drained: the spool was
 * found empty at the end.
 */
async function replaySpool(deps: SpoolReplayDeps): Promise<ReplayOutcome> {
  for (const name of listSpool(deps.dataDir)) {
    const entry = readSpooled(deps.dataDir, name);
    if (!entry) {
      deps.log.warn('spooled hook event unreadable; moved to spool/unreadable', { file: name });
      setAsideUnreadable(deps.dataDir, name);
      deps.unreadable(deps.nowMs());
      continue;
    }
    let outcome: 'done' | 'unreadable' | 'wait';
    try {
      outcome = isSpooledHookEvent(entry) ? replayEvent(deps, entry) : await replayCall(deps, entry);
    } catch (error) {
      // The lock is another process's for a moment (busy-spill.ts retries soon): not worth a warning.
      if (isStoreBusy(error)) return 'waiting';
      if (!storageFaultOf(error)) throw error;
      outcome = 'wait';
    }
    if (outcome === 'wait') {
      deps.log.warn('spooled hook events wait: the worker cannot store them now');
      return 'waiting';
    }
    if (outcome === 'unreadable') {
      setAsideUnreadable(deps.dataDir, name);
      deps.unreadable(deps.nowMs());
    } else removeSpooled(deps.dataDir, name);
    const e = isSpooledHookEvent(entry) ? entry : { host: 'claude-code', event: entry.hook_event, via: entry.via, failure: entry.failure };
    deps.replayed({ host: e.host, event: e.event, via: e.via, failure: e.failure }, deps.nowMs());
  }
  return listSpool(deps.dataDir).length === 0 ? 'drained' : 'waiting';
}

function replayEvent(deps: SpoolReplayDeps, entry: Extract<SpoolEntry, { v: 2 }>): 'done' | 'unreadable' {
  const body = entry.oversized ?? { text: entry.payload !== undefined ? JSON.stringify(entry.payload) : (entry.raw ?? '') };
  const result = deps.intake.handle({ host: entry.host, event: entry.event, via: entry.via, body, hookElapsedMs: () => null }, deps.nowMs());
  if ('error' in result) {
    deps.log.warn('spooled hook event refused', { host: entry.host, event: entry.event, error: result.error });
    return result.unreadable ? 'unreadable' : 'done';
  }
  return 'done';
}

async function replayCall(deps: SpoolReplayDeps, call: Exclude<SpoolEntry, { v: 2 }>): Promise<'done' | 'wait'> {
  const response = await deps.app.request(call.path, {
    method: 'POST',
    headers: { host: `127.0.0.1:${deps.port()}`, authorization: `Bearer ${deps.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(call.body),
  });
  if (response.status >= 500) return 'wait';
  if (response.status >= 400)
    deps.log.warn('spooled hook call refused; dropped', { path: call.path, status: response.status, body: (await response.text()).slice(0, 300) });
  return 'done';
}

/**
 * The worker's replays: one pass at a time (a pass awaits 0.2.0's entries, and two would take the
 * same file), never throwing (a failure is logged), and, for a while after a start, every few seconds.
 */
export function createSpoolReplayer(deps: SpoolReplayDeps & { held?(): boolean }) {
  let replaying: Promise<ReplayOutcome> | null = null;
  let often: NodeJS.Timeout | null = null;
  const replay = (): Promise<ReplayOutcome> => {
    // What is spooled while a newer version takes over is for that version to store.
    if (deps.held?.()) return Promise.resolve('waiting');
    if (replaying === null)
      replaying = replaySpool(deps)
        .catch((error): ReplayOutcome => {
          deps.log.warn('spool replay failed', { error: String(error) });
          return 'waiting';
        })
        .finally(() => {
          replaying = null;
        });
    return replaying;
  };
  return {
    replay,
    /** Replays every `everyMs` for `forMs` (timers unref'd). */
    replayOften(everyMs: number, forMs: number): void {
      const timer = setInterval(() => void replay(), everyMs);
      timer.unref();
      often = timer;
      setTimeout(() => clearInterval(timer), forMs).unref();
    },
    stop(): void {
      if (often) clearInterval(often);
    },
  };
}
