import type Database from 'better-sqlite3';
import { compensatedValue, tileTableName } from '../dashboards/compile-sqlite.js';
import { planTile } from '../dashboards/tile-plan.js';
import type { TileSums } from '../dashboards/tile-store.js';
import type { VersionInfo } from './install-sums.js';
import { emptyVersionSums, type PairedSums } from './paired-sums.js';
import { REVIEW_MEASURES } from './review-measures.js';
import type { ReviewSource } from './review-source.js';
import { denominatorColumn, MEMTRACE_EVENTS_COLUMN, numeratorColumn, REVIEW_SUMS_TILE } from './review-sums-tile.js';

/**
 * The review's sums as the collector keeps them at ingest (`REVIEW_SUMS_TILE`'s table: one row
 * per install × version), so a review reads a row per install whatever the store's size.
 * `sums` is that tile's TileSums; it is brought up to date before each read.
 */
export function localReviewSource(db: Database.Database, sums: TileSums, where: string): ReviewSource {
  const plan = planTile(REVIEW_SUMS_TILE);
  const table = tileTableName(REVIEW_SUMS_TILE);
  const leafOf = (name: string) => {
    const agg = plan.measures.find((m) => m.name === name)?.agg;
    if (!agg || !('sum' in agg)) throw new Error(`review sums: ${name} is not a plain sum`);
    return agg.sum;
  };
  // Measures share leaves (the turn count is most denominators): each distinct leaf is read once
  // per version, as its compensated pair's value s + c.
  const leaves = [...new Set(REVIEW_MEASURES.flatMap((m) => [leafOf(numeratorColumn(m.id)), leafOf(denominatorColumn(m.id))]))];
  const column = (version: 1 | 2, leaf: number) => 2 + (version - 1) * leaves.length + leaves.indexOf(leaf);
  const perVersion = (p: 1 | 2) => leaves.map((leaf) => `max(CASE WHEN series = ${p === 1 ? '@baseline' : '@candidate'} THEN ${compensatedValue(leaf)} END)`);
  /*
   * One row per install, both versions side by side, in the table's own key order (the install
   * first), so SQLite groups without sorting and JavaScript receives numbers only: reading the
   * install ids as strings cost more than the statistics.
   */
  const selectPairs = db
    .prepare(
      `SELECT max(series = @baseline), max(series = @candidate), ${[...perVersion(1), ...perVersion(2)].join(', ')} FROM "${table}" WHERE series IN (@baseline, @candidate) GROUP BY xk ORDER BY xk`,
    )
    .raw(true);
  const memtrace = leafOf(MEMTRACE_EVENTS_COLUMN);
  const selectVersions = db.prepare<[], { version: string; installs: number; memtrace: number }>(
    `SELECT series AS version, count(*) AS installs, sum(${compensatedValue(memtrace)}) AS memtrace FROM "${table}" GROUP BY series`,
  );
  const columns = (version: 1 | 2) => ({
    num: REVIEW_MEASURES.map((m) => column(version, leafOf(numeratorColumn(m.id)))),
    den: REVIEW_MEASURES.map((m) => column(version, leafOf(denominatorColumn(m.id)))),
  });
  const sides = [
    { side: 'baseline', presence: 0, ...columns(1) },
    { side: 'candidate', presence: 1, ...columns(2) },
  ] as const;
  return {
    where,
    async versions(): Promise<VersionInfo[]> {
      sums.refresh();
      return selectVersions.all().map((v) => ({ version: v.version, installs: v.installs, memtraceEvents: v.memtrace }));
    },
    async pairedSums(baseline, candidate): Promise<PairedSums> {
      sums.refresh();
      const rows = selectPairs.all({ baseline, candidate }) as Array<Array<number | null>>;
      const paired: PairedSums = { baseline: emptyVersionSums(rows.length), candidate: emptyVersionSums(rows.length), rows: { baseline: 0, candidate: 0 } };
      rows.forEach((row, i) => {
        for (const s of sides) {
          if (row[s.presence] !== 1) continue;
          paired.rows[s.side] += 1;
          const target = paired[s.side];
          for (let k = 0; k < target.length; k += 1) {
            target[k]!.num[i] = row[s.num[k]!] as number;
            target[k]!.den[i] = row[s.den[k]!] as number;
          }
        }
      });
      return paired;
    },
  };
}
