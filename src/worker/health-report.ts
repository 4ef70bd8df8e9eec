import type { HookStats } from './hook-accounting.js';
import type { LoopStatus } from './observer-loop.js';

/** /health: why the worker is degraded and when it tries again; counts and ages only, nothing private. */
export function healthReport(loop: LoopStatus, queueDepth: number, hooks: HookStats, providerName: string): { status: 'ok' | 'degraded' } & Record<string, unknown> {
  const degraded: Array<Record<string, unknown>> = [];
  // Events are kept, but nothing observes them until a provider is configured.
  if (providerName === 'none') degraded.push({ reason: 'no_provider' });
  if (loop.providerWait) degraded.push({ reason: loop.providerWait.reason, next_attempt_at: loop.providerWait.next_attempt_at, failures: loop.providerWait.failures });
  if (loop.storeFault) degraded.push({ reason: loop.storeFault.reason, since: loop.storeFault.since, messages_to_release: loop.storeFault.unreleased });
  return {
    status: degraded.length > 0 ? 'degraded' : 'ok',
    queue_depth: queueDepth,
    degraded,
    in_flight: loop.inFlight.length,
    in_flight_age_ms: loop.inFlight.map((c) => c.ageMs),
    hooks,
  };
}
