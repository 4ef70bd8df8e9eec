import type Database from 'better-sqlite3';
import type { RankedSQLite } from './compile-sqlite.js';
import { compensatedTotal, type CompensatedSum } from './sql-values.js';
import { aggregateValue } from './tile-measures.js';
import { medianPosition, RANKED_COLUMNS, type TilePlan } from './tile-plan.js';
import type { TileRow } from './tile-result.js';

export type GroupKey = number | string;

/**
 * A ranked tile's groups in its order, kept at ingest beside its sums (RankedSQLite), so a read
 * takes the ends and the median from an index instead of ranking every install (at 10 M events,
 * ~28 000 of them: 140–190 ms a tile). Each group's place is computed from the sums it was just
 * saved with, in the same transaction; `dashboard_ranked.through_seq` says which of the tile's
 * sums the ranking reflects, so a ranking an older memtrace left behind (or a store from before
 * rankings) is rebuilt from the sums, never read.
 */
export interface RankedGroups {
  /** After a group's sums were saved: its place in the ranking, or none while its `having` sum is zero. */
  place(xk: GroupKey, sums: readonly CompensatedSum[]): void;
  /** Whether the ranking reflects the tile's sums through `seq`. */
  reflects(seq: number): boolean;
  /** Recounts the ranking from every kept group's sums, which reflect events through `seq`. */
  rebuild(seq: number): void;
  /** The ranking now reflects the sums through `seq` (call after placing their groups). */
  advance(seq: number): void;
  /** Drops the cached watermark: another connection wrote, or a transaction rolled back. */
  forget(): void;
  /**
   * The tile's rows (the ends and the median, each with where it stands), read inside the
   * caller's read transaction so the index and the sums are one snapshot; null when the ranking
   * does not reflect the sums through `seq`, the tile's watermark in that snapshot.
   */
  rows(seq: number): TileRow[] | null;
}

/** The table of every ranked tile's watermark (created by the tile store with its own state). */
export const RANKED_STATE_TABLE = 'dashboard_ranked';

export function openRankedGroups(db: Database.Database, plan: TilePlan, sql: RankedSQLite, sumsTable: string): RankedGroups {
  const { tile } = plan;
  if (!tile.keep || !tile.order) throw new Error(`dashboard tile ${tile.id}: only a tile that keeps ranked ends is ranked`);
  const ends = tile.keep.ends;
  const orderBy = plan.measures.find((m) => m.name === tile.order!.by)!.agg;
  const leaves = plan.leaves.length;
  const table = `"${sql.table}"`;

  const upsert = db.prepare(`INSERT INTO ${table} (xk, v) VALUES (?, ?) ON CONFLICT (xk) DO UPDATE SET v = excluded.v`);
  const remove = db.prepare(`DELETE FROM ${table} WHERE xk = ?`);
  const clear = db.prepare(`DELETE FROM ${table}`);
  const sumsRows = db.prepare(`SELECT xk, ${Array.from({ length: leaves }, (_, i) => `s${i}, c${i}`).join(', ')} FROM "${sumsTable}"`).raw();
  const watermark = db.prepare<[string], number>(`SELECT through_seq FROM ${RANKED_STATE_TABLE} WHERE tile = ?`).pluck();
  const setWatermark = db.prepare(
    `INSERT INTO ${RANKED_STATE_TABLE} (tile, through_seq) VALUES (?, ?) ON CONFLICT (tile) DO UPDATE SET through_seq = excluded.through_seq`,
  );
  const count = db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck();
  const aboveZero = db.prepare<[], number>(`SELECT count(*) FROM ${table} WHERE v > 0`).pluck();
  const first = db.prepare<[number], GroupKey>(`SELECT xk FROM ${table} ORDER BY ${sql.order} LIMIT ?`).pluck();
  const last = db.prepare<[number], GroupKey>(`SELECT xk FROM ${table} ORDER BY ${sql.reversed} LIMIT ?`).pluck();
  const at = db.prepare<[number], GroupKey>(`SELECT xk FROM ${table} ORDER BY ${sql.order} LIMIT 1 OFFSET ?`).pluck();
  const measured = db.prepare<[string], TileRow & { xk: GroupKey }>(sql.rows);

  // Week keys are stored as INTEGER, as the sums table keeps them.
  const bound = (xk: GroupKey) => (typeof xk === 'number' ? BigInt(xk) : xk);
  let through: number | undefined;

  const place = (xk: GroupKey, sums: readonly CompensatedSum[]) => {
    // The group's f0, f1, … as `read` computes them from the saved pairs; NaN is SQLite's NULL.
    const f = sums.map((sum) => {
      const v = compensatedTotal(sum);
      return Number.isNaN(v) ? null : v;
    });
    const having = plan.having === null ? 1 : f[plan.having];
    if (having === null || having === undefined || having === 0) {
      remove.run(bound(xk));
      return;
    }
    const v = aggregateValue(orderBy, f, f);
    upsert.run(bound(xk), v === null || Number.isNaN(v) ? null : v);
  };

  const advance = (seq: number) => {
    setWatermark.run(tile.id, seq);
    through = seq;
  };

  return {
    place,
    reflects(seq) {
      through ??= watermark.get(tile.id);
      return through === seq;
    },
    rebuild(seq) {
      clear.run();
      for (const row of sumsRows.all() as unknown[][]) {
        const sums = Array.from({ length: leaves }, (_, i) => ({ s: row[1 + 2 * i] as number, c: (row[2 + 2 * i] as number | null) ?? Number.NaN }));
        place(row[0] as GroupKey, sums);
      }
      advance(seq);
    },
    advance,
    forget() {
      through = undefined;
    },
    rows(seq) {
      if (watermark.get(tile.id) !== seq) return null;
      const of = count.get() ?? 0;
      if (of === 0) return [];
      const positions = new Map<GroupKey, number>();
      const n = Math.min(ends, of);
      for (const [i, xk] of first.all(n).entries()) positions.set(xk, i + 1);
      for (const [i, xk] of last.all(n).entries()) positions.set(xk, of - i);
      const median = medianPosition(of);
      positions.set(at.get(median - 1)!, median);
      const above = aboveZero.get() ?? 0;
      const rows = measured.all(JSON.stringify([...positions.keys()])).map(({ xk, ...row }) => ({
        ...row,
        [RANKED_COLUMNS.position]: positions.get(xk)!,
        [RANKED_COLUMNS.of]: of,
        [RANKED_COLUMNS.aboveZero]: above,
      }));
      // Both tables move in one transaction: a group ranked but not kept by `read` would be a bug, never a row left out.
      if (rows.length !== positions.size)
        throw new Error(`dashboard tile ${tile.id}: its ranking and its sums disagree (${positions.size} ranked, ${rows.length} kept)`);
      return rows.sort((a, b) => a[RANKED_COLUMNS.position] - b[RANKED_COLUMNS.position]);
    },
  };
}
