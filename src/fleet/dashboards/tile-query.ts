import { quote, RANKED_COLUMNS, renderAggregate, type AggregateDialect, type TilePlan } from './tile-plan.js';

/**
 * The part of a tile's query both stores share: from one row per group (`xk`, `series`, and the
 * group's sum of each leaf as f0, f1, …) to the tile's rows. Groups whose `having` sum is zero
 * are left out; x totals (t0, …) are window sums over the groups of the same x; a series total,
 * when the tile asks for one, is one more row per x summing its groups. Whatever computed the
 * group sums — a pass over raw events, PostHog, or the sums kept at ingest — the arithmetic after
 * that is this one text, so the stores can only differ in the sums themselves.
 */
export interface QueryDialect extends AggregateDialect {
  /** The x column as shown, from the grouped `xk`. */
  xOut(xk: string): string;
  /** A group's sum counts as non-zero (default `f != 0`; a NULL or NaN sum never does). */
  nonZero?(sum: string): string;
  /** One ORDER BY key; NULLs sort as SQLite sorts them (first ascending, last descending). */
  orderKey?(key: string, desc: boolean): string;
  /** The LIMIT of a tile that sets none (PostHog cuts a SELECT without LIMIT at its default of 100 rows). */
  defaultLimit?: number;
}

const orderKeyOf = (d: QueryDialect) => d.orderKey ?? ((key: string, desc: boolean) => (desc ? `${key} DESC` : key));

export function renderTileQuery(plan: TilePlan, groups: string, d: QueryDialect): string {
  const { tile } = plan;
  const { withKept, select, rows, measured } = queryParts(plan, groups, d);
  if (tile.keep && tile.order) return keepRankedEnds(plan, withKept, measured, d);
  const total = tile.series?.total;
  const tieBreak = total === undefined ? 'xk, series' : `xk, series = ${quote(total)} DESC, series`;
  const order = tile.order ? `${orderKeyOf(d)(tile.order.by, tile.order.desc ?? false)}, ${tieBreak}` : tieBreak;
  const limit = tile.limit ?? d.defaultLimit;
  return [withKept, `SELECT ${select.join(', ')}`, `FROM (${rows})`, `ORDER BY ${order}`, ...(limit ? [`LIMIT ${limit}`] : [])].join('\n');
}

/**
 * A ranked tile's rows before the ranking: x, the measures and the group key `xk`, one row per
 * kept group, in no order — the very text the ranking reads in renderTileQuery, for a store that
 * ranks the groups in an index of its own and reads only the kept positions' rows.
 */
export function renderMeasuredGroups(plan: TilePlan, groups: string, d: QueryDialect): string {
  if (!plan.tile.keep || !plan.tile.order) throw new Error(`dashboard tile ${plan.tile.id}: only a tile that keeps ranked ends has measured groups`);
  const { withKept, measured } = queryParts(plan, groups, d);
  return `${withKept}\n${measured}`;
}

function queryParts(plan: TilePlan, groups: string, d: QueryDialect) {
  const { tile } = plan;
  const sums = plan.leaves.map((_, i) => `f${i}`);
  const hasSeries = tile.series !== undefined;
  const nonZero = d.nonZero ?? ((f) => `${f} != 0`);
  const kept = plan.having === null ? groups : `SELECT * FROM (${groups}) WHERE ${nonZero(`f${plan.having}`)}`;
  // Sums over kept rows name the column by its table (kept.f0): in ClickHouse (and HogQL) a bare
  // f0 next to `sum(f0) AS f0` would read the alias, an aggregate inside an aggregate.
  const totals = (window: boolean) =>
    plan.xTotals.map((i) => (window && hasSeries ? `sum(f${i}) OVER (PARTITION BY xk) AS t${i}` : window ? `f${i} AS t${i}` : `sum(kept.f${i}) AS t${i}`));
  const perGroup = `SELECT xk, series, ${[...sums, ...totals(true)].join(', ')} FROM kept`;
  const total = tile.series?.total;
  const rows =
    total === undefined
      ? perGroup
      : `${perGroup} UNION ALL SELECT xk, ${quote(total)} AS series, ${[...sums.map((f) => `sum(kept.${f}) AS ${f}`), ...totals(false)].join(', ')} FROM kept GROUP BY xk`;
  const select = [`${d.xOut('xk')} AS x`, ...(hasSeries ? ['series'] : []), ...plan.measures.map((m) => `${renderAggregate(m.agg, d)} AS ${m.name}`)];
  return { withKept: `WITH kept AS (${kept})`, select, rows, measured: `SELECT ${select.join(', ')}, xk FROM (${rows})` };
}

/**
 * Tile.keep in SQL: every row ranked in the tile's order (ties by x, as the ORDER BY breaks
 * them), then only the ends and the median kept — the same positions as keptPosition.
 */
function keepRankedEnds(plan: TilePlan, withKept: string, measured: string, d: QueryDialect): string {
  const { tile } = plan;
  const { by, desc = false } = tile.order!;
  const ends = tile.keep!.ends;
  const orderKey = orderKeyOf(d);
  const { position, of, aboveZero } = RANKED_COLUMNS;
  const ranked = [
    `SELECT *, row_number() OVER (ORDER BY ${orderKey(by, desc)}, xk) AS ${position}`,
    `count(*) OVER () AS ${of}`,
    `count(${d.cases([[`${by} > 0`, '1']], 'NULL')}) OVER () AS ${aboveZero}`,
  ].join(', ');
  const fromBottom = `(${of} - ${position})`;
  const kept = `${position} <= ${ends} OR ${fromBottom} < ${ends} OR (2 * ${fromBottom} <= ${of} - 1 AND ${of} - 1 < 2 * ${fromBottom} + 2)`;
  const columns = ['x', ...plan.measures.map((m) => m.name), position, of, aboveZero];
  return [
    withKept,
    `SELECT ${columns.join(', ')}`,
    `FROM (${ranked} FROM (${measured}))`,
    `WHERE ${kept}`,
    `ORDER BY ${position}`,
    `LIMIT ${2 * ends + 1}`,
  ].join('\n');
}
