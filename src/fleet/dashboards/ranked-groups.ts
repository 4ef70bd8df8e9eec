import type Database from 'better-sqlite3';
import type { RankedSQLite } from './compile-sqlite.js';
import { compensatedTotal, type CompensatedSum } from './sql-values.js';
import { aggregateValue } from './tile-measures.js';
import { medianPosition, RANKED_COLUMNS, type TilePlan } from './tile-plan.js';
import type { TileRow } from './tile-result.js';

type GroupKey = number | string;

/**
 * A ranked tile's groups in its order, kept at ingest beside its sums (RankedSQLite), so a read
 * takes the ends and the median from an index instead of ranking every install (at 10 M events,
 * ~28 000 of them: 140–190 ms a tile). Each group's place is computed from the sums it was just
 * saved with, in the same transaction, and so is its count of groups above zero (a count over
 * the index would read every install again). `dashboard_ranked.through_seq` says which of the
 * tile's sums the ranking reflects, so a ranking an older memtrace left behind (or a store from
 * before rankings) is rebuilt from the sums, never read.
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

/** Every ranked tile's watermark and count of groups above zero (created by the tile store with its own state). */
export const RANKED_STATE_TABLE = 'dashboard_ranked';
export const RANKED_STATE_DDL = `CREATE TABLE IF NOT EXISTS ${RANKED_STATE_TABLE} (tile TEXT PRIMARY KEY, through_seq INTEGER NOT NULL, above_zero INTEGER NOT NULL)`;

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
  const current = db.prepare<[GroupKey | bigint], number | null>(`SELECT v FROM ${table} WHERE xk = ?`).pluck();
  const state = db.prepare<[string], { through_seq: number; above_zero: number }>(`SELECT through_seq, above_zero FROM ${RANKED_STATE_TABLE} WHERE tile = ?`);
  const restart = db.prepare(
    `INSERT INTO ${RANKED_STATE_TABLE} (tile, through_seq, above_zero) VALUES (?, ?, ?) ON CONFLICT (tile) DO UPDATE SET through_seq = excluded.through_seq, above_zero = excluded.above_zero`,
  );
  const setWatermark = db.prepare(`UPDATE ${RANKED_STATE_TABLE} SET through_seq = ? WHERE tile = ?`);
  const addAboveZero = db.prepare(`UPDATE ${RANKED_STATE_TABLE} SET above_zero = above_zero + ? WHERE tile = ?`);
  const count = db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck();
  const first = db.prepare<[number], GroupKey>(`SELECT xk FROM ${table} ORDER BY ${sql.order} LIMIT ?`).pluck();
  const last = db.prepare<[number], GroupKey>(`SELECT xk FROM ${table} ORDER BY ${sql.reversed} LIMIT ?`).pluck();
  const at = db.prepare<[number], GroupKey>(`SELECT xk FROM ${table} ORDER BY ${sql.order} LIMIT 1 OFFSET ?`).pluck();
  const measured = db.prepare<[string], TileRow & { xk: GroupKey }>(sql.rows);

  // Week keys are stored as INTEGER, as the sums table keeps them.
  const bound = (xk: GroupKey) => (typeof xk === 'number' ? BigInt(xk) : xk);
  let through: number | undefined;

  /** The ordered measure of a group its `having` keeps (null: unknown), or undefined for a group it leaves out. */
  const placeOf = (sums: readonly CompensatedSum[]): number | null | undefined => {
    // The group's f0, f1, … as `read` computes them from the saved pairs; NaN is SQLite's NULL.
    const f = sums.map((sum) => {
      const v = compensatedTotal(sum);
      return Number.isNaN(v) ? null : v;
    });
    const having = plan.having === null ? 1 : f[plan.having];
    if (having === null || having === undefined || having === 0) return undefined;
    const v = aggregateValue(orderBy, f, f);
    return v === null || Number.isNaN(v) ? null : v;
  };
  const above = (v: number | null | undefined) => v !== null && v !== undefined && v > 0;

  const place = (xk: GroupKey, sums: readonly CompensatedSum[]) => {
    const key = bound(xk);
    // undefined: no row (out of the ranking); null: ranked with an unknown measure.
    const was = current.get(key);
    const v = placeOf(sums);
    // Most events move a group's other sums, not its place: the index is written only when the place moved.
    if (v === was) return;
    if (v === undefined) remove.run(key);
    else upsert.run(key, v);
    if (above(was) !== above(v)) addAboveZero.run(above(v) ? 1 : -1, tile.id);
  };

  const advance = (seq: number) => {
    // No row: the ranking was never counted, and stays unread until it is.
    through = setWatermark.run(seq, tile.id).changes === 1 ? seq : undefined;
  };

  return {
    place,
    reflects(seq) {
      through ??= state.get(tile.id)?.through_seq;
      return through === seq;
    },
    rebuild(seq) {
      clear.run();
      let aboveZero = 0;
      for (const row of sumsRows.all() as unknown[][]) {
        const v = placeOf(Array.from({ length: leaves }, (_, i) => ({ s: row[1 + 2 * i] as number, c: (row[2 + 2 * i] as number | null) ?? Number.NaN })));
        if (v === undefined) continue;
        upsert.run(bound(row[0] as GroupKey), v);
        if (above(v)) aboveZero += 1;
      }
      restart.run(tile.id, seq, aboveZero);
      through = seq;
    },
    advance,
    forget() {
      through = undefined;
    },
    rows(seq) {
      const counted = state.get(tile.id);
      if (counted?.through_seq !== seq) return null;
      const of = count.get() ?? 0;
      if (of === 0) return [];
      const positions = new Map<GroupKey, number>();
      const n = Math.min(ends, of);
      for (const [i, xk] of first.all(n).entries()) positions.set(xk, i + 1);
      for (const [i, xk] of last.all(n).entries()) positions.set(xk, of - i);
      const median = medianPosition(of);
      positions.set(at.get(median - 1)!, median);
      const rows = measured.all(JSON.stringify([...positions.keys()])).map(({ xk, ...row }) => ({
        ...row,
        [RANKED_COLUMNS.position]: positions.get(xk)!,
        [RANKED_COLUMNS.of]: of,
        [RANKED_COLUMNS.aboveZero]: counted.above_zero,
      }));
      // Both tables move in one transaction: a group ranked but not kept by `read` would be a bug, never a row left out.
      if (rows.length !== positions.size)
        throw new Error(`dashboard tile ${tile.id}: its ranking and its sums disagree (${positions.size} ranked, ${rows.length} kept)`);
      return rows.sort((a, b) => a[RANKED_COLUMNS.position] - b[RANKED_COLUMNS.position]);
    },
  };
}
