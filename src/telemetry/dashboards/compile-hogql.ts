import type { Dimension, Tile } from './tile-ir.js';
import { planTile, quote, renderAggregate, renderExpr, type ExprDialect } from './tile-plan.js';

export interface CompiledHogQL {
  sql: string;
  /** Result columns in order: x, [series], then one per measure. */
  columns: string[];
}

const EXPR: ExprDialect = {
  num: (k) => `coalesce(toFloat(properties.${k}), 0)`,
  str: (k) => `coalesce(toString(properties.${k}), '')`,
  has: (k) => `if(properties.${k} IS NOT NULL, 1, 0)`,
  flag: (condition) => `if(${condition}, 1, 0)`,
  byEvent: (cases, otherwise) => `multiIf(${cases.map(([event, value]) => `event = ${event}, ${value}`).join(', ')}, ${otherwise})`,
  firstOf: (parts) => `coalesce(${parts.map((p) => `nullIf(${p}, '')`).join(', ')}, '')`,
};

function dimension(dim: Dimension): string {
  if (dim === 'week') return 'toStartOfWeek(timestamp, 1)';
  if (dim === 'install') return 'distinct_id';
  return renderExpr(dim.expr, EXPR);
}

/**
 * HogQL for PostHog. PostHog can hold an event twice until its table merges, so the inner query
 * keeps one row per uuid (`GROUP BY uuid` with `any(…)`) and every sum and count runs over those
 * rows: a turn count is a count of distinct uuids, a rollup's fields are summed once.
 * `sinceWeeks` bounds the scan (default 26; 0 reads all time).
 */
export function compileHogQL(tile: Tile, options: { sinceWeeks?: number } = {}): CompiledHogQL {
  const plan = planTile(tile);
  const sinceWeeks = options.sinceWeeks ?? 26;
  const hasSeries = tile.series !== undefined;
  const inner = [
    `any(${dimension(tile.x)}) AS x`,
    ...(tile.series ? [`any(${dimension(tile.series)}) AS series`] : []),
    ...plan.leaves.map((leaf, i) => `any(${renderExpr(leaf, EXPR)}) AS f${i}`),
  ];
  const agg = {
    sum: (i: number) => `sum(f${i})`,
    // The share of everything in the x bucket: a window over the grouped rows.
    xTotal: (i: number) => (hasSeries ? `sum(sum(f${i})) OVER (PARTITION BY x)` : `sum(f${i})`),
    ratio: (a: string, b: string) => `(${a}) / nullIf(${b}, 0)`,
  };
  const groups = hasSeries ? 'x, series' : 'x';
  const where = [`event IN (${tile.events.map(quote).join(', ')})`, ...(sinceWeeks > 0 ? [`timestamp >= now() - INTERVAL ${Math.floor(sinceWeeks)} WEEK`] : [])];
  const lines = [
    `SELECT ${groups}, ${plan.measures.map((m) => `${renderAggregate(m.agg, agg)} AS ${m.name}`).join(', ')}`,
    'FROM (',
    `  SELECT uuid, ${inner.join(', ')}`,
    '  FROM events',
    `  WHERE ${where.join(' AND ')}`,
    '  GROUP BY uuid',
    ')',
    `GROUP BY ${groups}`,
    ...(plan.having === null ? [] : [`HAVING sum(f${plan.having}) != 0`]),
    `ORDER BY ${tile.order ? `${tile.order.by}${tile.order.desc ? ' DESC' : ''}, ${groups}` : groups}`,
    ...(tile.limit ? [`LIMIT ${tile.limit}`] : []),
  ];
  return { sql: lines.join('\n'), columns: ['x', ...(hasSeries ? ['series'] : []), ...plan.measures.map((m) => m.name)] };
}
