import { searchLatencyBucket, type MemoryAccessVia } from '../telemetry/index.js';

/**
 * One use of the memory, as memory_access_rollup counts it. Pure: the counters an access adds
 * to its window. Nothing of what was searched or opened is kept — only how many and how fast.
 */
export type MemoryAccess =
  | { kind: 'search'; durationMs: number; results: number }
  | { kind: 'fetch'; observations: number; durationMs?: number; id?: string }
  | { kind: 'timeline'; durationMs?: number; items?: number }
  | { kind: 'export'; items: number; durationMs?: number }
  | { kind: 'import'; imported: number; invalid: number; durationMs?: number }
  | { kind: 'forget'; items: number; durationMs?: number };

export function accessIncrements(access: MemoryAccess): Record<string, number> {
  switch (access.kind) {
    case 'search': {
      const ms = Math.max(0, Math.round(access.durationMs));
      return { searches: 1, searches_empty: access.results === 0 ? 1 : 0, search_total_ms: ms, [searchLatencyBucket(ms)]: 1, results_returned: access.results };
    }
    case 'fetch':
      return { observations_fetched: access.observations };
    case 'timeline':
      return { timelines: 1 };
    case 'export':
      return { exports: 1, items_exported: access.items };
    case 'import':
      return { imports: 1, items_imported: access.imported, import_lines_invalid: access.invalid };
    case 'forget':
      return access.items > 0 ? { forgets: 1, items_forgotten: access.items } : {};
  }
}

/** Where the faces of the memory report each access (the rollup machinery, or nothing). */
export interface MemoryAccessSink {
  record(via: MemoryAccessVia, access: MemoryAccess, nowMs: number): void;
  /** Secrets an import replaced, by kind (redaction_rollup, edge import). */
  redacted?(counts: Readonly<Record<string, number>>, nowMs: number): void;
}

export const NO_ACCESS_TELEMETRY: MemoryAccessSink = { record: () => undefined, redacted: () => undefined };
