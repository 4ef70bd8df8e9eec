import type { Random } from './prng.js';
import { SEARCH_LATENCY_BUCKETS, searchLatencyBucket, type MemoryAccessVia } from '../../telemetry/index.js';

/**
 * How a simulated install uses memory search on a release that has it: a quarter of installs
 * never search; the others search a few times per session, mostly through the agent (MCP), some
 * on the command line, a little in the viewer; about one search in eight finds nothing; a search
 * takes milliseconds (log-normal around 6 ms), and about half the results get opened.
 */
export interface MemoryProfile {
  searchesPerSession: number;
  via: Readonly<Record<MemoryAccessVia, number>>;
}

const WINDOW_MS = 300_000;

export function memoryProfile(random: Random): MemoryProfile {
  const searchesPerSession = random() < 0.25 ? 0 : 0.5 + 3.5 * random();
  const cli = 0.1 + 0.25 * random();
  const viewer = 0.1 * random();
  return { searchesPerSession, via: { mcp: 1 - cli - viewer, cli, viewer } };
}

function latencyMs(random: Random): number {
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return 6 * Math.exp(0.6 * z);
}

/** The memory_access_rollup events of one session: one per face that searched, in the session's first window. */
export function sessionMemoryWindows(
  random: Random,
  profile: MemoryProfile,
  startMs: number,
): Array<{ timestamp: number; properties: Record<string, unknown> }> {
  const searches = Math.round(profile.searchesPerSession * (0.4 + 1.2 * random()));
  if (searches === 0) return [];
  const byVia = new Map<string, number>();
  for (let i = 0; i < searches; i += 1) {
    let r = random();
    // Faces are drawn in the profile's own order (mcp first), which the seeds' fleets were made with.
    const via =
      (Object.keys(profile.via) as MemoryAccessVia[]).find((v) => {
        r -= profile.via[v];
        return r < 0;
      }) ?? 'mcp';
    byVia.set(via, (byVia.get(via) ?? 0) + 1);
  }
  const windowStart = Math.floor(startMs / WINDOW_MS) * WINDOW_MS;
  return [...byVia].map(([via, count]) => {
    const c: Record<string, number> = { searches: count, searches_empty: 0, search_total_ms: 0, results_returned: 0, observations_fetched: 0 };
    for (const b of SEARCH_LATENCY_BUCKETS) c[b] = 0;
    for (let i = 0; i < count; i += 1) {
      const ms = latencyMs(random);
      c.search_total_ms! += ms;
      c[searchLatencyBucket(ms)]! += 1;
      const empty = random() < 0.12;
      if (empty) c.searches_empty! += 1;
      const results = empty ? 0 : 1 + Math.floor(random() * 10);
      c.results_returned! += results;
      if (via === 'mcp' && results > 0) c.observations_fetched! += Math.floor(random() * 3);
    }
    c.search_total_ms = Math.round(c.search_total_ms!);
    return { timestamp: windowStart + WINDOW_MS, properties: { via, ...c, window_start_ts: windowStart } };
  });
}
