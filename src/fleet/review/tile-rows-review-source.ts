import type { TileRow } from '../dashboards/tile-result.js';
import { installSumsFromColumns, type VersionInfo } from './install-sums.js';
import { pairInstalls, type PairedSums } from './paired-sums.js';
import type { ReviewSource } from './review-source.js';
import { MEMTRACE_EVENTS_COLUMN } from './review-sums-tile.js';

/** Reads REVIEW_SUMS_TILE's rows (x = install, series = version, one column per sum) from a store. */
export interface ReviewRowsReader {
  /** The rows of the given versions. */
  rows(versions: readonly string[]): Promise<TileRow[]>;
  /** Per version: installs and memtrace-only events. */
  versions(): Promise<Array<{ version: string; installs: number; memtrace_events: number }>>;
}

/**
 * A review source over a store that computes REVIEW_SUMS_TILE's rows itself (a ClickHouse
 * store): the rows are paired by install in code-point order and reviewed by the same code as
 * every other source, so equal rows give an equal review.
 */
export function reviewSourceFromRows(reader: ReviewRowsReader, where: string): ReviewSource {
  // A sum past Float64 comes back as null (unknown): it makes its version's value unknown, as inf does in SQLite.
  const num = (row: TileRow, column: string): number => {
    const v = row[column];
    return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  };
  return {
    where,
    async versions(): Promise<VersionInfo[]> {
      return (await reader.versions()).map((v) => ({ version: v.version, installs: Number(v.installs), memtraceEvents: Number(v[MEMTRACE_EVENTS_COLUMN]) }));
    },
    async pairedSums(baseline, candidate): Promise<PairedSums> {
      const rows = (await reader.rows([baseline, candidate])).map((row) =>
        installSumsFromColumns(String(row.x), String(row.series), (column) => num(row, column)),
      );
      return pairInstalls(rows, baseline, candidate);
    },
  };
}
