import type { Logger } from '../log.js';
import type { Timers } from '../timers.js';

/**
 * How long a hook's event waits for the store's write lock. Another process (an import, a
 * forget) holds it for short transactions, but a commit that merges the search index can take
 * hundreds of ms at a million observations: the hook is not made to wait for that.
 */
export const HOOK_STORE_WAIT_MS = 20;
/** How soon the spool is tried again while events wait in it for the lock. */
const RETRY_MS = 25;

export type ReplayOutcome = 'drained' | 'waiting';

/**
 * A hook never waits long for the store's write lock. While another process holds it past
 * HOOK_STORE_WAIT_MS, the worker keeps the event in its spool (redacted, written and synced like
 * every spool entry) and answers; the spool is replayed as soon as the lock is free. From the
 * first such event until the spool is empty again, later events go to the spool too, so the store
 * takes them in the order they came.
 */
export function createBusySpill(deps: { replay(): Promise<ReplayOutcome>; timers: Timers; log: Logger }) {
  let spilling = false;
  // One line per worker: an import beside it spills hundreds of times (counted in `worker status`).
  let told = false;
  let retry: { cancel(): void } | null = null;
  let stopped = false;
  const tryAgain = (): void => {
    if (retry !== null || stopped) return;
    retry = deps.timers.setTimeout(() => {
      void deps.replay().then((outcome) => {
        retry = null;
        // Nothing can be spooled between the pass's end and here: both run before the next I/O callback.
        if (outcome === 'drained') spilling = false;
        else tryAgain();
      });
    }, RETRY_MS);
  };
  return {
    /** True while events wait in the spool for the lock: a new one joins them there. */
    spilling: (): boolean => spilling,
    /** An event was kept in the spool for the lock. */
    spilled(): void {
      if (!told) deps.log.info('another process held the store’s write lock: hook events waited in the spool for it (counted in worker status)');
      told = true;
      spilling = true;
      tryAgain();
    },
    stop(): void {
      stopped = true;
      retry?.cancel();
      retry = null;
    },
  };
}

export type BusySpill = ReturnType<typeof createBusySpill>;
