import { quote, renderAggregate, type AggregateDialect, type TilePlan } from './tile-plan.js';

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
}

export function renderTileQuery(plan: TilePlan, groups: string, d: QueryDialect): string {
  const { tile } = plan;
  const sums = plan.leaves.map((_, i) => `f${i}`);
  const hasSeries = tile.series !== undefined;
  const kept = plan.having === null ? groups : `SELECT * FROM (${groups}) WHERE f${plan.having} != 0`;
  const totals = (window: boolean) =>
    plan.xTotals.map((i) => (window && hasSeries ? `sum(f${i}) OVER (PARTITION BY xk) AS t${i}` : window ? `f${i} AS t${i}` : `sum(f${i}) AS t${i}`));
  const perGroup = `SELECT xk, series, ${[...sums, ...totals(true)].join(', ')} FROM kept`;
  const total = tile.series?.total;
  const rows =
    total === undefined
      ? perGroup
      : `${perGroup} UNION ALL SELECT xk, ${quote(total)} AS series, ${[...sums.map((f) => `sum(${f}) AS ${f}`), ...totals(false)].join(', ')} FROM kept GROUP BY xk`;
  const select = [`${d.xOut('xk')} AS x`, ...(hasSeries ? ['series'] : []), ...plan.measures.map((m) => `${renderAggregate(m.agg, d)} AS ${m.name}`)];
  const tieBreak = total === undefined ? 'xk, series' : `xk, series = ${quote(total)} DESC, series`;
  const order = tile.order ? `${tile.order.by}${tile.order.desc ? ' DESC' : ''}, ${tieBreak}` : tieBreak;
  return [`WITH kept AS (${kept})`, `SELECT ${select.join(', ')}`, `FROM (${rows})`, `ORDER BY ${order}`, ...(tile.limit ? [`LIMIT ${tile.limit}`] : [])].join(
    '\n',
  );
}
