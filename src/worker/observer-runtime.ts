import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { ObserverChoice } from '../providers/select.js';
import type { ObserverProvider } from '../providers/types.js';
import type { Store } from '../store/index.js';
import type { Timers } from '../timers.js';
import type { RedactionCounts } from '../redaction/index.js';
import { DEFAULT_BATCH_LIMITS, type BatchLimits } from './batch-policy.js';
import type { CommitVerifier } from './commit-verifier.js';
import type { LoopTelemetry } from './loop-types.js';
import { createObserverBudget, utcDay, type BudgetStatus } from './observer-budget.js';
import { createObserverLoop, type ObserverLoop, type ObserverLoopConfig } from './observer-loop.js';
import { createRunTurn } from './observer-turn.js';
import { withSpendGuard } from './spend-guard.js';
import { storeLoopQueue } from './store-loop-queue.js';

/** Sessions whose host is remembered at once; past it the oldest is read again when asked. */
const MAX_KNOWN_PLATFORMS = 10_000;

export interface ObserverRuntimeDeps {
  store: Store;
  choice: ObserverChoice;
  clock: Clock;
  log: Logger;
  timers: Timers;
  verifier: CommitVerifier;
  telemetry: LoopTelemetry;
  reportRedactions(edge: 'observer_guard', counts: RedactionCounts, nowMs: number): void;
}

export interface ObserverRuntime {
  loop: ObserverLoop;
  /** The provider compaction uses now, behind the same budget and ledger; `none` when nothing observes. */
  compactionProvider(): ObserverProvider;
  /** What /health and `worker status` say about the observer: which, why, spend today, the budget. */
  status(): ObserverStatus;
}

export interface ObserverStatus {
  line: string;
  /** The observer-deciding variables set in the worker's environment (names only). */
  envSeen: readonly string[];
  budget: BudgetStatus;
  today: ReturnType<Store['observerCalls']['byDay']>[number] | null;
}

/**
 * The observer as the worker runs it: the providers the environment chose, each behind the daily
 * budget and the spend ledger (withSpendGuard), the batching queue and the loop. Kept apart from
 * runtime.ts so the composition of the rest of the worker stays small.
 */
export function startObserver(
  config: { dailyBudgetTokens: number; loop: ObserverLoopConfig; batch?: BatchLimits; envSeen?: readonly string[] },
  deps: ObserverRuntimeDeps,
): ObserverRuntime {
  const { store, choice, clock } = deps;
  const budget = createObserverBudget({ dailyTokens: config.dailyBudgetTokens }, store.observerCalls);
  const guarded = new Map<ObserverProvider, ObserverProvider>();
  const guard = (provider: ObserverProvider) => {
    let wrapped = guarded.get(provider);
    if (!wrapped) {
      wrapped = provider.name === 'none' ? provider : withSpendGuard(provider, budget, clock);
      guarded.set(provider, wrapped);
    }
    return wrapped;
  };
  // A session's host, once known, never changes (sessions.init keeps the first one): the loop asks
  // on every event, so it is read from the store once per session.
  const platforms = new Map<string, string>();
  const platformOf = (sessionId: string): string | null => {
    const known = platforms.get(sessionId);
    if (known !== undefined) return known;
    const platform = store.sessions.get(sessionId)?.platform ?? null;
    if (platform !== null) {
      if (platforms.size >= MAX_KNOWN_PLATFORMS) platforms.delete(platforms.keys().next().value!);
      platforms.set(sessionId, platform);
    }
    return platform;
  };
  const recordTurn = deps.telemetry.recordTurn;
  const loop = createObserverLoop(config.loop, {
    queue: storeLoopQueue(store, config.batch ?? DEFAULT_BATCH_LIMITS),
    runTurn: createRunTurn({ store, clock, log: deps.log, verifier: deps.verifier, recordTurn, reportRedactions: deps.reportRedactions }),
    providerFor: (sessionId) => {
      const provider = choice.forPlatform(platformOf(sessionId));
      return provider ? guard(provider) : null;
    },
    observing: () => choice.providers.length > 0,
    telemetry: deps.telemetry,
    clock,
    log: deps.log,
    timers: deps.timers,
  });
  return {
    loop,
    compactionProvider: () => guard(choice.primary),
    status() {
      const nowMs = clock.now();
      const day = utcDay(nowMs);
      const today = store.observerCalls.byDay(1).find((d) => d.day === day) ?? null;
      return { line: choice.describe(), envSeen: config.envSeen ?? [], budget: budget.status(nowMs), today };
    },
  };
}
