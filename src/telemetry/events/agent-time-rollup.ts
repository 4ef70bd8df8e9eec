import { PLATFORMS } from '../../hosts/platforms.js';
import { count, windowStart, type EventSpec } from '../field-types.js';

/**
 * Per-session share of the agent's wall time spent waiting for memtrace's hooks, as an exclusive
 * histogram (upper bounds in percent; the last is open): buckets add up across windows and
 * installs, so the fleet's p50 and p95 can be read from them.
 */
export const AGENT_SHARE_BOUNDS_PCT = [0.5, 1, 2, 5, 10, 20] as const;
export const AGENT_SHARE_BUCKETS = [...AGENT_SHARE_BOUNDS_PCT.map((b) => `pct_le_${String(b).replace('.', '_')}` as const), 'pct_gt_20'] as const;
export type AgentShareBucket = (typeof AGENT_SHARE_BUCKETS)[number];

export function agentShareBucket(sharePct: number): AgentShareBucket {
  for (const [i, bound] of AGENT_SHARE_BOUNDS_PCT.entries()) if (sharePct <= bound) return AGENT_SHARE_BUCKETS[i]!;
  return 'pct_gt_20';
}

export const AGENT_TIME_ROLLUP: EventSpec = {
  name: 'agent_time_rollup',
  description: 'How long agents waited for memtrace: per finished session, the time its hooks blocked the agent as a share of the session’s wall time.',
  cadence: 'one per 5-minute window with finished sessions, per host',
  fields: [
    { key: 'platform', type: { kind: 'enum', values: PLATFORMS }, description: 'the agent host' },
    count('sessions', 'sessions finished in the window (session end, or quiet)'),
    count('agent_ms', 'sum of those sessions’ wall time, from the first hook’s start to the last hook’s reply (ms)'),
    count('blocking_ms', 'sum of the time the agent waited for memtrace’s hooks in them (ms)'),
    count('blocking_calls', 'hook calls the agent waited for'),
    ...AGENT_SHARE_BUCKETS.map((b) =>
      count(
        b,
        b === 'pct_gt_20'
          ? 'sessions that waited more than 20 % of their wall time'
          : `sessions that waited at most ${b.slice(7).replace('_', '.')} % (and more than the bucket below)`,
      ),
    ),
    windowStart,
  ],
};
