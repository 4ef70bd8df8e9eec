import type { HookCallInfo } from '../server/app.js';
import { platformOf } from '../hosts/platforms.js';
import { hookDurationBucket, HOOK_EVENTS, HOOK_INSTALL_MODES } from '../telemetry/index.js';

/** A hook's own cost is folded per call into windowed counters; nothing per call leaves the machine. */
export interface HookCounterSink {
  recordCounters(event: 'hook_rollup', dims: Record<string, string>, increments: Record<string, number>, nowMs: number): void;
}

export type { HookCallInfo as HookCallSeen } from '../server/app.js';

export interface HookStats {
  accepted: number;
  rejected: number;
  failed: number;
  /** Events whose largest fields the hook shortened to fit the body limit. */
  shortened: number;
  replayed_from_spool: number;
  spooled_timeouts: number;
  spooled_unreachable: number;
}

const EVENTS: ReadonlySet<string> = new Set(HOOK_EVENTS);
const MODES: ReadonlySet<string> = new Set(HOOK_INSTALL_MODES);
/** A start time further back than this is a clock jump or a replay, not a hook's cost. */
const MAX_PLAUSIBLE_MS = 600_000;

/**
 * Counts every hook call the worker saw (a hook's warnings reach only Claude Code's debug log, so
 * refusals must be visible here: /health and `memtrace worker status`) and folds the cost of
 * accepted ones into hook_rollup.
 */
export function createHookAccounting(sink: HookCounterSink, options: { defer?: (fn: () => void) => void } = {}) {
  // The fold writes an accumulator row: done after the reply, not on the hook's path to it.
  const defer = options.defer ?? ((fn: () => void) => fn());
  const stats: HookStats = { accepted: 0, rejected: 0, failed: 0, shortened: 0, replayed_from_spool: 0, spooled_timeouts: 0, spooled_unreachable: 0 };
  const dimsOf = (event: string, via: string, host: string | undefined) =>
    EVENTS.has(event) ? { hook_event: event, install_mode: MODES.has(via) ? via : 'unknown', platform: platformOf(host ?? 'claude-code') } : null;

  return {
    seen(call: HookCallInfo): void {
      if (call.status >= 500) stats.failed += 1;
      else if (call.status >= 400) stats.rejected += 1;
      else stats.accepted += 1;
      if (call.shortened && call.status < 300) stats.shortened += 1;
      const dims = dimsOf(call.event, call.via, call.host);
      if (!dims || call.status >= 300 || call.startedAtMs === null) return;
      const durationMs = call.nowMs - call.startedAtMs;
      if (durationMs < 0 || durationMs > MAX_PLAUSIBLE_MS) return;
      defer(() => sink.recordCounters('hook_rollup', dims, { count: 1, total_ms: durationMs, [hookDurationBucket(durationMs)]: 1, payloads_shortened: call.shortened ? 1 : 0 }, call.nowMs));
    },
    /** A spooled call the worker replayed: the hook that wrote it timed out or found no worker. */
    replayed(call: { hook_event: string; via: string; host?: string; failure: 'unreachable' | 'timeout' }, nowMs: number): void {
      stats.replayed_from_spool += 1;
      if (call.failure === 'timeout') stats.spooled_timeouts += 1;
      else stats.spooled_unreachable += 1;
      const dims = dimsOf(call.hook_event, call.via, call.host);
      if (dims) sink.recordCounters('hook_rollup', dims, call.failure === 'timeout' ? { timeouts: 1 } : { unreachable: 1 }, nowMs);
    },
    stats: (): HookStats => ({ ...stats }),
  };
}

export type HookAccounting = ReturnType<typeof createHookAccounting>;
