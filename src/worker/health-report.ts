import type { HookStats } from './hook-accounting.js';
import type { LoopStatus } from './observer-loop.js';

/** What /health and `worker status` say when no provider is configured: a mode, not a fault. */
export function notObservingNote(providerName: string): string {
  return `no observer provider (${providerName}): events are stored, not observed; set ANTHROPIC_API_KEY or OPENAI_API_KEY (or MEMTRACE_PROVIDER) and restart the worker to observe them`;
}

/** /health: why the worker is degraded and when it tries again; counts and ages only, nothing private. */
export function healthReport(loop: LoopStatus, queueDepth: number, hooks: HookStats, providerName: string): { status: 'ok' | 'degraded' } & Record<string, unknown> {
  const degraded: Array<Record<string, unknown>> = [];
  if (loop.providerWait) degraded.push({ reason: loop.providerWait.reason, next_attempt_at: loop.providerWait.next_attempt_at, failures: loop.providerWait.failures });
  if (loop.storeFault) degraded.push({ reason: loop.storeFault.reason, since: loop.storeFault.since, messages_to_release: loop.storeFault.unreleased });
  return {
    status: degraded.length > 0 ? 'degraded' : 'ok',
    queue_depth: queueDepth,
    observing: loop.observing,
    ...(loop.observing ? {} : { note: notObservingNote(providerName) }),
    degraded,
    in_flight: loop.inFlight.length,
    in_flight_age_ms: loop.inFlight.map((c) => c.ageMs),
    hooks,
  };
}
