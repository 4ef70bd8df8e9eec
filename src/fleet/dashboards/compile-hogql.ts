import type { Dimension, Expr, Tile } from './tile-ir.js';
import { planTile, quote, renderExpr, tileColumns, type ExprDialect } from './tile-plan.js';
import { renderTileQuery, type QueryDialect } from './tile-query.js';

export interface CompiledHogQL {
  sql: string;
  /** Result columns in order: x, [series], then one per measure. */
  columns: string[];
}

const EXPR: ExprDialect = {
  // A property is a String in PostHog; a tile counts it only when it casts to a finite number.
  num: (k) => `if(isFinite(toFloat(properties.${k})), toFloat(properties.${k}), 0)`,
  str: (k) => `coalesce(toString(properties.${k}), '')`,
  has: (k) => `if(properties.${k} IS NOT NULL, 1, 0)`,
  flag: (condition) => `if(${condition}, 1, 0)`,
  byEvent: (cases, otherwise) => `multiIf(${cases.map(([event, value]) => `event = ${event}, ${value}`).join(', ')}, ${otherwise})`,
  firstOf: (parts) => `coalesce(${parts.map((p) => `nullIf(${p}, '')`).join(', ')}, '')`,
};

/** One per-event expression as the tiles' HogQL reads it, for other queries over the same events. */
export function renderHogQLExpr(e: Expr): string {
  return renderExpr(e, EXPR);
}

/**
 * PostHog cuts a SELECT without LIMIT at 100 rows and honours an explicit one up to 10 000
 * (50 000 on newer releases): a tile that would show more rows on PostHog than its default says so.
 */
export const POSTHOG_TILE_ROW_LIMIT = 10_000;

const QUERY: QueryDialect = {
  defaultLimit: POSTHOG_TILE_ROW_LIMIT,
  ratio: (a, b) => `(${a}) / nullIf(${b}, 0)`,
  atLeast: (value, of, min) => `if((${of}) >= (${min}), ${value}, NULL)`,
  cases: (branches, otherwise) => `multiIf(${branches.map(([c, v]) => `${c}, ${v}`).join(', ')}, ${otherwise})`,
  xOut: (xk) => xk,
};

function dimension(dim: Dimension): string {
  if (dim === 'week') return 'toStartOfWeek(timestamp, 1)';
  if (dim === 'install') return 'distinct_id';
  return renderExpr(dim.expr, EXPR);
}

/**
 * HogQL for PostHog. PostHog can hold an event twice until its table merges, so the innermost
 * query keeps one row per uuid (`GROUP BY uuid` with `any(…)`) and every sum runs over those rows:
 * a turn count is a count of distinct uuids, a rollup's fields are summed once. From the group
 * sums on, the query is the same text the collector runs (`renderTileQuery`).
 * `sinceWeeks` bounds the scan (default 26; 0 reads all time).
 */
export function compileHogQL(tile: Tile, options: { sinceWeeks?: number } = {}): CompiledHogQL {
  const plan = planTile(tile);
  const sinceWeeks = options.sinceWeeks ?? 26;
  const perEvent = [
    `any(${dimension(tile.x)}) AS x`,
    `any(${tile.series ? dimension(tile.series.by) : "''"}) AS s`,
    ...(plan.distinct.size > 0 ? ['any(distinct_id) AS i'] : []),
    ...plan.leaves.map((leaf, i) => `any(${renderExpr(leaf, EXPR)}) AS v${i}`),
  ];
  const where = [
    `event IN (${tile.events.map(quote).join(', ')})`,
    ...(sinceWeeks > 0 ? [`timestamp >= now() - INTERVAL ${Math.floor(sinceWeeks)} WEEK`] : []),
  ];
  const once = `SELECT uuid, ${perEvent.join(', ')} FROM events WHERE ${where.join(' AND ')} GROUP BY uuid`;
  const groups = `SELECT x AS xk, s AS series, ${plan.leaves.map((_, i) => (plan.distinct.has(i) ? `count(DISTINCT if(v${i} != 0, i, NULL)) AS f${i}` : `sum(v${i}) AS f${i}`)).join(', ')} FROM (${once}) GROUP BY xk, series`;
  return { sql: renderTileQuery(plan, groups, QUERY), columns: tileColumns(tile) };
}
