import { platformOf } from '../hosts/platforms.js';
import { hookDurationBucket, HOOK_EVENTS, HOOK_INSTALL_MODES } from '../telemetry/index.js';

/** A hook's own cost is folded per call into windowed counters; nothing per call leaves the machine. */
export interface HookCounterSink {
  recordCounters(event: 'hook_rollup', dims: Record<string, string>, increments: Record<string, number>, nowMs: number): void;
}

/** One hook call the worker handled (live over the socket, or replayed from the spool). */
export interface HookCallSeen {
  host: string;
  sessionId: string | null;
  /** The event it carried; null when it carried none memtrace handles or could not be read. */
  kind: string | null;
  via: string;
  status: number;
  shortened: boolean;
  /** The hook process's time from its start to the reply, when it could say. */
  elapsedMs: number | null;
  nowMs: number;
}

export interface HookStats {
  accepted: number;
  rejected: number;
  failed: number;
  /** Events whose largest fields were shortened to the stored size. */
  shortened: number;
  replayed_from_spool: number;
  spooled_timeouts: number;
  spooled_unreachable: number;
  /** Events the worker kept in its spool while another process held the store's write lock. */
  spooled_busy: number;
  /** Payloads that could not be read as an event (kept in spool/unreadable). */
  unreadable: number;
}

/** Why a replayed event had been spooled → its /health count and hook_rollup field. */
const SPOOL_COUNTERS: Partial<Record<string, { stat: 'spooled_timeouts' | 'spooled_unreachable' | 'spooled_busy'; field: string }>> = {
  timeout: { stat: 'spooled_timeouts', field: 'timeouts' },
  unreachable: { stat: 'spooled_unreachable', field: 'unreachable' },
  busy: { stat: 'spooled_busy', field: 'store_busy' },
};

const EVENTS: ReadonlySet<string> = new Set(HOOK_EVENTS);
const MODES: ReadonlySet<string> = new Set(HOOK_INSTALL_MODES);
/** A start time further back than this is a clock jump or a replay, not a hook's cost. */
const MAX_PLAUSIBLE_MS = 600_000;

/**
 * Counts every hook call the worker handled (a hook's warnings reach only the host's debug log,
 * so refusals must be visible here: /health and `memtrace worker status`) and folds the cost of
 * accepted ones into hook_rollup. Only hook calls that reached the worker through its own door
 * (the data dir's socket) or its spool are seen here: a request on the TCP port is not a hook.
 */
export function createHookAccounting(sink: HookCounterSink) {
  const stats: HookStats = {
    accepted: 0,
    rejected: 0,
    failed: 0,
    shortened: 0,
    replayed_from_spool: 0,
    spooled_timeouts: 0,
    spooled_unreachable: 0,
    spooled_busy: 0,
    unreadable: 0,
  };
  const dimsOf = (event: string | null, via: string, host: string) =>
    event !== null && EVENTS.has(event) ? { hook_event: event, install_mode: MODES.has(via) ? via : 'unknown', platform: platformOf(host) } : null;

  return {
    seen(call: HookCallSeen): void {
      if (call.status >= 500) stats.failed += 1;
      else if (call.status >= 400) stats.rejected += 1;
      else stats.accepted += 1;
      if (call.shortened && call.status < 300) stats.shortened += 1;
      const dims = dimsOf(call.kind, call.via, call.host);
      if (!dims || call.status >= 300) return;
      const elapsed = call.elapsedMs;
      const timed = elapsed !== null && elapsed >= 0 && elapsed <= MAX_PLAUSIBLE_MS;
      const increments: Record<string, number> = timed
        ? { count: 1, total_ms: elapsed, [hookDurationBucket(elapsed)]: 1, payloads_shortened: call.shortened ? 1 : 0 }
        : { payloads_shortened: call.shortened ? 1 : 0 };
      if (!timed && !call.shortened) return;
      sink.recordCounters('hook_rollup', dims, increments, call.nowMs);
    },
    /** A spooled event the worker replayed: the hook that wrote it timed out, found no worker, or was refused. */
    replayed(entry: { host: string; event: string; via: string; failure: string }, nowMs: number, kindOf: (event: string) => string | null): void {
      stats.replayed_from_spool += 1;
      const counter = SPOOL_COUNTERS[entry.failure];
      if (!counter) return;
      stats[counter.stat] += 1;
      const dims = dimsOf(kindOf(entry.event), entry.via, entry.host);
      if (dims) sink.recordCounters('hook_rollup', dims, { [counter.field]: 1 }, nowMs);
    },
    unreadable(): void {
      stats.unreadable += 1;
    },
    stats: (): HookStats => ({ ...stats }),
  };
}

export type HookAccounting = ReturnType<typeof createHookAccounting>;
