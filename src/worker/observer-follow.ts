import type { Logger } from '../log.js';
import type { ObserverChoice } from '../providers/select.js';
import type { ObserverLoop } from './observer-loop.js';

interface Stoppable {
  /** `graceMs`: a call in flight is let finish (a hand-over), rather than cut off and paid twice. */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Keeps the running worker on the observer the machine has now (docs/observer.md): an agent CLI
 * installed or removed since the start changes the choice (looked at on each session start and
 * tick), compaction moves to the new primary observer, and a session start gives a provider that
 * refused (logged out, CLI missing) its probe call at once. At a session start the looking is
 * deferred past the hook's reply: it stats each agent CLI in each PATH folder (milliseconds on a
 * loaded machine), and the agent waits for that one hook.
 */
export function followObserver(deps: {
  choice: ObserverChoice;
  loop: Pick<ObserverLoop, 'rescan' | 'retryRefused'>;
  log: Logger;
  /** Compaction on the current primary observer; null when it cannot summarize. */
  startCompaction(): Stoppable | null;
  /** Runs work after the current request's reply (setImmediate). */
  defer(work: () => void): void;
}) {
  let compaction: Stoppable | null = null;
  let stopped = false;
  const refresh = (nowMs: number) => {
    const changed = deps.choice.refresh?.(nowMs) ?? null;
    if (changed === null) return;
    deps.log.info(changed);
    deps.loop.rescan();
    const previous = compaction;
    compaction = null;
    void (previous?.stop() ?? Promise.resolve()).then(() => {
      if (!stopped) compaction = deps.startCompaction();
    });
  };
  return {
    start() {
      compaction = deps.startCompaction();
    },
    refresh,
    sessionStarted(nowMs: number) {
      deps.defer(() => {
        try {
          refresh(nowMs);
          deps.loop.retryRefused();
        } catch (error) {
          deps.log.warn('could not look at the observer again at a session start', { error: String(error) });
        }
      });
    },
    async stop(options: { graceMs?: number } = {}) {
      stopped = true;
      await compaction?.stop(options);
    },
  };
}
