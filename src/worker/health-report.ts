import type { HookStats } from './hook-accounting.js';
import type { LoopStatus } from './observer-loop.js';
import type { RetentionReport } from '../memory/retention.js';
import { NO_SPEND, spendJson, type StoreSize } from '../store/index.js';
import type { ObserverStatus } from './observer-runtime.js';

/** The store's size against its budget and what retention last removed: sizes and counts only. */
export interface StoreHealth {
  size: StoreSize;
  budgetBytes: number;
  retentionDays: number;
  lastRetention: RetentionReport | null;
}

function storeHealthReport(store: StoreHealth): Record<string, unknown> {
  const used = (store.size.pageCount - store.size.freePages) * store.size.pageSize;
  const last = store.lastRetention;
  return {
    bytes: store.size.bytes,
    used_bytes: used,
    budget_bytes: store.budgetBytes,
    over_budget: used > store.budgetBytes,
    auto_vacuum: store.size.autoVacuum,
    raw_retention_days: store.retentionDays,
    last_retention:
      last === null
        ? null
        : {
            at: new Date(last.at).toISOString(),
            removed: {
              tool_events: last.removed.toolEvents,
              prompts: last.removed.prompts,
              session_files: last.removed.sessionFiles,
              spool_files: last.removed.spoolFiles,
              unprocessed_dropped: last.removed.unprocessedDropped,
            },
            removed_for_budget: last.removedForBudget,
            bytes_before: last.bytesBefore,
            bytes_after: last.bytesAfter,
            duration_ms: last.durationMs,
            longest_step_ms: last.longestStepMs,
          },
  };
}

/** What /health and `worker status` say when no provider is configured: a mode, not a fault. */
function notObservingNote(providerName: string): string {
  return `no observer provider (${providerName}): events are stored, not observed; install an agent CLI — Claude Code, Gemini CLI, Codex, OpenCode, Copilot CLI or pi — (observed with your own login; noticed at the next session start, no restart needed), or set ANTHROPIC_API_KEY or OPENAI_API_KEY (or MEMTRACE_PROVIDER) and restart the worker`;
}

/** The observer's part of /health: which observer and why, whether it waits, and today's spend against the budget (counts only). */
function observerReport(loop: LoopStatus, observer: ObserverStatus): Record<string, unknown> {
  const { budget, today } = observer;
  const paused = loop.budgetHold ?? (budget.paused ? { until: budget.paused.resumeAt } : null);
  return {
    line: observer.line,
    env_seen: observer.envSeen,
    state: !loop.observing ? 'off' : paused ? 'paused' : loop.providerWaits.length > 0 ? 'waiting' : 'observing',
    paused: paused ? { reason: 'daily_budget', resume_at: paused.until } : null,
    waits: loop.providerWaits.map((w) => ({
      provider: w.provider,
      reason: w.reason,
      detail: w.detail,
      next_attempt_at: w.next_attempt_at,
      failures: w.failures,
    })),
    budget: { day: budget.day, tokens_per_day: budget.budgetTokens, counted_today: budget.countedTokens, remaining_today: budget.remainingTokens },
    today: spendJson(today ?? NO_SPEND),
  };
}

/** Versions and ports as the running worker knows them (lifecycle.ts): numbers and reasons, no paths. */
export interface LifecycleHealth {
  /** A newer install a hook came from (it takes over). */
  installedVersion: string | null;
  handingOverTo: string | null;
  /** Why that newer install could not take over. */
  takeOverFailure: { reason: string; version: string; at: string } | null;
  /** The HTTP port asked for, when it was taken and the API listens on another. */
  portWanted: number | null;
}

function lifecycleReport(lifecycle: LifecycleHealth, degraded: Array<Record<string, unknown>>): Record<string, unknown> {
  if (lifecycle.takeOverFailure)
    degraded.push({
      reason: 'newer_version_not_started',
      version: lifecycle.takeOverFailure.version,
      detail: lifecycle.takeOverFailure.reason,
      since: lifecycle.takeOverFailure.at,
    });
  return {
    ...(lifecycle.installedVersion ? { installed_version: lifecycle.installedVersion } : {}),
    ...(lifecycle.handingOverTo ? { handing_over_to: lifecycle.handingOverTo } : {}),
    ...(lifecycle.portWanted !== null ? { port_wanted: lifecycle.portWanted } : {}),
  };
}

/** /health: why the worker is degraded and when it tries again; counts and ages only, nothing private. */
export function healthReport(
  loop: LoopStatus,
  queueDepth: number,
  hooks: HookStats,
  providerName: string,
  store?: StoreHealth,
  observer?: ObserverStatus,
  lifecycle?: LifecycleHealth,
): { status: 'ok' | 'degraded' } & Record<string, unknown> {
  const degraded: Array<Record<string, unknown>> = [];
  for (const wait of loop.providerWaits)
    degraded.push({
      reason: wait.reason,
      provider: wait.provider,
      ...(wait.detail ? { detail: wait.detail } : {}),
      next_attempt_at: wait.next_attempt_at,
      failures: wait.failures,
    });
  if (loop.storeFault) degraded.push({ reason: loop.storeFault.reason, since: loop.storeFault.since, messages_to_release: loop.storeFault.unreleased });
  const storeReport = store === undefined ? undefined : storeHealthReport(store);
  // Observations are never dropped to meet the budget: the worker says so instead.
  if (storeReport?.over_budget === true) degraded.push({ reason: 'store_over_budget', bytes: storeReport.used_bytes, budget_bytes: storeReport.budget_bytes });
  const versions = lifecycle === undefined ? {} : lifecycleReport(lifecycle, degraded);
  return {
    ...versions,
    status: degraded.length > 0 ? 'degraded' : 'ok',
    queue_depth: queueDepth,
    observing: loop.observing,
    ...(loop.observing ? {} : { note: notObservingNote(providerName) }),
    degraded,
    in_flight: loop.inFlight.length,
    in_flight_age_ms: loop.inFlight.map((c) => c.ageMs),
    ...(observer === undefined ? {} : { observer: observerReport(loop, observer) }),
    hooks,
    ...(storeReport === undefined ? {} : { store: storeReport }),
  };
}
