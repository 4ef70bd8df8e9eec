import type Database from 'better-sqlite3';
import { tileTableName } from '../dashboards/compile-sqlite.js';
import { planTile } from '../dashboards/tile-plan.js';
import type { TileSums } from '../dashboards/tile-store.js';
import { installSumsFromColumns, type InstallSums, type VersionInfo } from './install-sums.js';
import type { ReviewSource } from './review-source.js';
import { MEMTRACE_EVENTS_COLUMN, REVIEW_SUMS_TILE } from './review-sums-tile.js';

/**
 * The review's sums as the collector keeps them at ingest (`REVIEW_SUMS_TILE`'s table: one row
 * per install × version), so a review reads a row per install whatever the store's size.
 * `sums` is that tile's TileSums; it is brought up to date before each read.
 */
export function localReviewSource(db: Database.Database, sums: TileSums, where: string): ReviewSource {
  const plan = planTile(REVIEW_SUMS_TILE);
  const table = tileTableName(REVIEW_SUMS_TILE);
  // Each measure here is the sum of one leaf, kept as a compensated pair (s, c) whose value is s + c.
  const valueOf = (name: string) => {
    const agg = plan.measures.find((m) => m.name === name)?.agg;
    if (!agg || !('sum' in agg)) throw new Error(`review sums: ${name} is not a plain sum`);
    return `s${agg.sum} + c${agg.sum}`;
  };
  const names = plan.measures.map((m) => m.name);
  const selectRows = db.prepare(`SELECT xk, series, ${names.map((n) => `${valueOf(n)} AS "${n}"`).join(', ')} FROM "${table}" WHERE series = ?`);
  const selectVersions = db.prepare<[], { version: string; installs: number; memtrace: number }>(
    `SELECT series AS version, count(*) AS installs, sum(${valueOf(MEMTRACE_EVENTS_COLUMN)}) AS memtrace FROM "${table}" GROUP BY series`,
  );
  return {
    where,
    async versions(): Promise<VersionInfo[]> {
      sums.refresh();
      return selectVersions.all().map((v) => ({ version: v.version, installs: v.installs, memtraceEvents: v.memtrace }));
    },
    async installSums(versions): Promise<InstallSums[]> {
      sums.refresh();
      const out: InstallSums[] = [];
      for (const version of versions) {
        for (const row of selectRows.all(version) as Array<Record<string, number | string>>) {
          out.push(installSumsFromColumns(String(row.xk), version, (column) => row[column] as number));
        }
      }
      return out;
    },
  };
}
