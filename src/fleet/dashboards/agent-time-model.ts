import { AGENT_SHARE_BUCKETS, agentShareBucket } from '../../telemetry/index.js';
import type { Random } from './prng.js';

/**
 * What memtrace's hooks cost a session in agent time on each release, as a share of the session's
 * wall time: 0.2.x starts Node for its foreground hooks (about 5 % of a short session), later
 * releases a shell forwarder (about 1 %). Log-normal per session, so a few sessions wait longer.
 */
const MEDIAN_SHARE_PCT: Readonly<Record<string, number>> = { '0.2.0': 5 };
const CURRENT_MEDIAN_PCT = 1;
const SPREAD = 0.6;
const WINDOW_MS = 300_000;

/** The agent_time_rollup one finished session adds (its own window), for a host. */
export function sessionAgentTime(
  random: Random,
  version: string,
  platform: string,
  startMs: number,
  endMs: number,
): { timestamp: number; properties: Record<string, unknown> } {
  const median = MEDIAN_SHARE_PCT[version] ?? CURRENT_MEDIAN_PCT;
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const sharePct = Math.min(60, median * Math.exp(SPREAD * z));
  const agentMs = endMs - startMs;
  const blockingMs = Math.round((agentMs * sharePct) / 100);
  const windowStart = Math.floor(endMs / WINDOW_MS) * WINDOW_MS;
  const buckets = Object.fromEntries(AGENT_SHARE_BUCKETS.map((b) => [b, 0]));
  buckets[agentShareBucket(sharePct)] = 1;
  return {
    timestamp: windowStart + WINDOW_MS,
    properties: { platform, sessions: 1, agent_ms: agentMs, blocking_ms: blockingMs, blocking_calls: 3, ...buckets, window_start_ts: windowStart },
  };
}
