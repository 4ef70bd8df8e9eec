import { count, windowStart, type EventSpec } from '../field-types.js';

/** Which face of the memory was used: `memtrace search`/`export`/`import`/`forget`, the MCP server, the viewer. */
export const MEMORY_ACCESS_VIA = ['cli', 'mcp', 'viewer'] as const;
export type MemoryAccessVia = (typeof MEMORY_ACCESS_VIA)[number];

/**
 * Exclusive search-latency buckets (upper bounds in ms; the last is open): the query alone,
 * measured in the process that ran it. Buckets add up across windows and installs.
 */
const SEARCH_LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 1000] as const;
export const SEARCH_LATENCY_BUCKETS = [...SEARCH_LATENCY_BOUNDS_MS.map((b) => `search_ms_le_${b}` as const), 'search_ms_gt_1000'] as const;
export type SearchLatencyBucket = (typeof SEARCH_LATENCY_BUCKETS)[number];

export function searchLatencyBucket(durationMs: number): SearchLatencyBucket {
  for (const bound of SEARCH_LATENCY_BOUNDS_MS) if (durationMs <= bound) return `search_ms_le_${bound}`;
  return 'search_ms_gt_1000';
}

export const MEMORY_ACCESS_ROLLUP: EventSpec = {
  name: 'memory_access_rollup',
  description:
    'How people and agents use the memory: searches (and how many found nothing, and how fast), observations opened, timelines, exports, imports and forgets. Counts only: never a query, an id or a title.',
  cadence:
    'one per 5-minute window with memory access, per face (cli, mcp, viewer); a command run without the worker is folded into the same window and sent by the worker',
  fields: [
    { key: 'via', type: { kind: 'enum', values: MEMORY_ACCESS_VIA }, description: 'the command line, the MCP server (an agent), or the viewer page' },
    count('searches', 'searches run'),
    count('searches_empty', 'searches that found nothing'),
    count('search_total_ms', 'sum of search durations (ms)'),
    ...SEARCH_LATENCY_BUCKETS.map((b) =>
      count(b, b === 'search_ms_gt_1000' ? 'searches that took over 1000 ms' : `searches that took at most ${b.slice(13)} ms (and more than the bucket below)`),
    ),
    count('results_returned', 'search results returned'),
    count('observations_fetched', 'observations opened in full (get_observations, the viewer’s observation page)'),
    count('timelines', 'timelines shown'),
    count('exports', 'exports written'),
    count('items_exported', 'observations and summaries exported'),
    count('imports', 'imports run'),
    count('items_imported', 'observations and summaries imported'),
    count('import_lines_invalid', 'import lines refused as malformed or of an unknown type'),
    count('forgets', 'forget runs that removed something'),
    count('items_forgotten', 'observations and summaries forgotten'),
    windowStart,
  ],
};
