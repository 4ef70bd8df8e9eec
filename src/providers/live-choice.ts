import { chooseObserver, hostClisDeciding, type ChoiceOptions, type ObserverChoice } from './select.js';
import type { ObserverProvider } from './types.js';

/**
 * The worker's observer choice, looked at again while it runs (docs/observer.md, "Which
 * observer runs"). Only what can change under a running process is re-read: which agent CLIs are
 * on its PATH. Its environment (keys, MEMTRACE_PROVIDER) is fixed at start, so a choice made
 * from a key or MEMTRACE_PROVIDER never changes here.
 */
export interface LiveObserverChoice extends ObserverChoice {
  /** Detects again; returns the new `observer: …` line when the choice changed, else null. */
  refresh(nowMs: number): string | null;
}

export interface Redetection {
  /** What the choice depends on, as a comparable key (the agent CLIs found on PATH). */
  signature(): string;
  /** The choice for the environment as it is now; null when it cannot be made. */
  choose(): ObserverChoice | null;
}

/** Delegates to the current choice; `refresh` swaps it when what it was made from changed. */
function liveObserverChoice(initial: ObserverChoice, redetection: Redetection | null): LiveObserverChoice {
  let current = initial;
  let signature = redetection?.signature() ?? '';
  let noticedAt: string | null = null;
  const describe = (platform?: string | null) => {
    const line = current.describe(platform);
    return noticedAt === null ? line : `${line} (noticed at ${noticedAt}, without a restart)`;
  };
  return {
    forPlatform: (platform) => current.forPlatform(platform),
    get primary(): ObserverProvider {
      return current.primary;
    },
    get providers(): readonly ObserverProvider[] {
      return current.providers;
    },
    describe,
    refresh(nowMs) {
      if (!redetection) return null;
      const next = redetection.signature();
      if (next === signature) return null;
      const chosen = redetection.choose();
      if (!chosen) return null;
      signature = next;
      current = chosen;
      noticedAt = new Date(nowMs).toISOString();
      return describe();
    },
  };
}

/** chooseObserver, looked at again by `refresh` (the worker calls it at each session start and on its tick). */
export function chooseLiveObserver(env: Record<string, string | undefined>, options: ChoiceOptions): { choice: LiveObserverChoice } | { error: string } {
  const first = chooseObserver(env, options);
  if ('error' in first) return first;
  const redetection: Redetection | null =
    hostClisDeciding(env, options) === null
      ? null
      : {
          signature: () => (hostClisDeciding(env, options) ?? []).join(','),
          choose: () => {
            const again = chooseObserver(env, options);
            return 'error' in again ? null : again.choice;
          },
        };
  return { choice: liveObserverChoice(first.choice, redetection) };
}
