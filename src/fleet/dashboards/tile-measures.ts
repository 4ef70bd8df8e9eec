import { compareCodePoints } from './code-point-order.js';
import { keptPosition, RANKED_COLUMNS, type PlannedAggregate, type TilePlan } from './tile-plan.js';
import type { TileRow } from './tile-result.js';

/** One group of a tile as a store keeps it: its x, its series and the sum of each leaf (f0, f1, …). */
export interface GroupSums {
  /** The x as shown (a week's Monday as YYYY-MM-DD, an install, a model…). */
  x: string;
  series: string;
  sums: ReadonlyArray<number | null>;
}

type Value = number | null;

/**
 * From group sums to a tile's rows, in JavaScript: the same arithmetic, in the same order, as
 * the SQL every store shares (tile-query.ts): groups whose `having` sum is zero, unknown or NaN
 * are left out; x totals sum the kept groups of an x; a series total is one more row per x; NULL
 * (null here) propagates as SQL's does; rows are ordered as SQLite orders them. A store that
 * keeps group sums (ClickHouse) reads them in one query and computes the rest here; the tests
 * hold the two ways to each other.
 */
export function tileRowsFromGroups(plan: TilePlan, groups: readonly GroupSums[]): TileRow[] {
  const { tile } = plan;
  const leaves = plan.leaves.length;
  const kept = groups.filter((g) => plan.having === null || nonZero(g.sums[plan.having] ?? null));
  const byX = new Map<string, GroupSums[]>();
  for (const g of kept) byX.set(g.x, [...(byX.get(g.x) ?? []), g]);
  // SQL's sum(): NULLs are skipped, and a sum of none is NULL.
  const sumOf = (gs: readonly GroupSums[], i: number): Value => {
    let acc: Value = null;
    for (const g of gs) {
      const v = g.sums[i];
      if (v !== null && v !== undefined) acc = (acc ?? 0) + v;
    }
    return acc;
  };
  const totalsOf = (x: string) => {
    const t: Value[] = new Array(leaves).fill(null);
    for (const i of plan.xTotals) t[i] = tile.series ? sumOf(byX.get(x)!, i) : null;
    return t;
  };
  type Row = { x: string; series: string; f: Value[]; t: Value[]; isTotal: boolean };
  const rows: Row[] = kept.map((g) => {
    const f = Array.from({ length: leaves }, (_, i) => g.sums[i] ?? null);
    const t = tile.series ? totalsOf(g.x) : f.slice();
    return { x: g.x, series: g.series, f, t, isTotal: false };
  });
  const totalLabel = tile.series?.total;
  if (totalLabel !== undefined)
    for (const [x, gs] of byX) {
      const f = Array.from({ length: leaves }, (_, i) => sumOf(gs, i));
      rows.push({ x, series: totalLabel, f, t: f.slice(), isTotal: true });
    }
  const out = rows.map((r) => {
    const row: TileRow = { x: r.x };
    if (tile.series) row.series = r.series;
    for (const m of plan.measures) row[m.name] = aggregateValue(m.agg, r.f, r.t);
    return { row, r };
  });
  const order = tile.order;
  out.sort((a, b) => {
    if (order) {
      const c = compareValues(a.row[order.by] as Value, b.row[order.by] as Value, order.desc ?? false);
      if (c !== 0) return c;
    }
    const x = compareCodePoints(a.r.x, b.r.x);
    if (x !== 0) return x;
    if (totalLabel !== undefined && a.r.isTotal !== b.r.isTotal) return a.r.isTotal ? -1 : 1;
    return compareCodePoints(a.r.series, b.r.series);
  });
  if (tile.keep && order)
    return keepRankedEnds(
      out.map((o) => o.row),
      order.by,
      tile.keep.ends,
    );
  const limited = tile.limit ? out.slice(0, tile.limit) : out;
  return limited.map((o) => o.row);
}

/** Tile.keep over rows already in the tile's order: the ends and the median, each saying where it stands. */
function keepRankedEnds(rows: readonly TileRow[], by: string, ends: number): TileRow[] {
  const of = rows.length;
  const aboveZero = rows.filter((r) => typeof r[by] === 'number' && (r[by] as number) > 0).length;
  const out: TileRow[] = [];
  rows.forEach((row, i) => {
    if (keptPosition(i + 1, of, ends)) out.push({ ...row, [RANKED_COLUMNS.position]: i + 1, [RANKED_COLUMNS.of]: of, [RANKED_COLUMNS.aboveZero]: aboveZero });
  });
  return out;
}

/** SQL's `f != 0` on a sum: a NULL or NaN sum is not non-zero. */
const nonZero = (v: Value) => v !== null && !Number.isNaN(v) && v !== 0;

/** NULLs (and NaN, which SQLite keeps as NULL) first ascending and last descending, as SQLite sorts them. */
function compareValues(x: Value, y: Value, desc: boolean): number {
  const a = x === null || Number.isNaN(x) ? null : x;
  const b = y === null || Number.isNaN(y) ? null : y;
  if (a === b) return 0;
  if (a === null) return desc ? 1 : -1;
  if (b === null) return desc ? -1 : 1;
  return desc ? b - a : a - b;
}

/** A measure over one group's sums (f) and x totals (t), with SQL's arithmetic: NULL propagates, x / 0 is NULL. */
export function aggregateValue(a: PlannedAggregate, f: readonly Value[], t: readonly Value[]): Value {
  if ('sum' in a) return f[a.sum] ?? null;
  if ('xTotal' in a) return t[a.xTotal] ?? null;
  if ('ratio' in a) return ratio(aggregateValue(a.ratio[0], f, t), aggregateValue(a.ratio[1], f, t));
  if ('product' in a) {
    const [x, y] = [aggregateValue(a.product[0], f, t), aggregateValue(a.product[1], f, t)];
    return x === null || y === null ? null : x * y;
  }
  if ('scale' in a) {
    const x = aggregateValue(a.scale[0], f, t);
    return x === null ? null : x * a.scale[1];
  }
  if ('atLeast' in a) {
    const [of, min] = [aggregateValue(a.atLeast.of, f, t), aggregateValue(a.atLeast.min, f, t)];
    return of !== null && min !== null && of >= min ? aggregateValue(a.atLeast.value, f, t) : null;
  }
  const counts = a.quantile.buckets.map((b) => aggregateValue(b.count, f, t));
  if (counts.some((c) => c === null)) return null;
  const total = (counts as number[]).reduce((n, c) => n + c, 0);
  if (total === 0) return null;
  const target = total * a.quantile.q;
  let before = 0;
  let lower = 0;
  for (const [k, bucket] of a.quantile.buckets.entries()) {
    const count = counts[k]!;
    const through = k === 0 ? count : before + count;
    if (through >= target) return bucket.upTo === null ? lower : lower + (bucket.upTo - lower) * (ratio(target - before, count) ?? Number.NaN);
    before = through;
    lower = bucket.upTo ?? lower;
  }
  return null;
}

function ratio(a: Value, b: Value): Value {
  return a === null || b === null || b === 0 ? null : a / b;
}
