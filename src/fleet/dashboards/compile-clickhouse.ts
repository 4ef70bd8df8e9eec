import type { Dimension, Expr, Tile } from './tile-ir.js';
import { planTile, quote, renderExpr, tileColumns, type ExprDialect, type TilePlan } from './tile-plan.js';
import { renderTileQuery, type QueryDialect } from './tile-query.js';

/**
 * SQL for ClickHouse over PostHog's `events` shape (`uuid`, `event`, `properties` a JSON String,
 * `timestamp DateTime64(6, 'UTC')`, `distinct_id`, `team_id`), written as PostHog's HogQL printer
 * writes the tiles' HogQL: a property is
 * `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, 'k'), ''), 'null'), '^"|"$', '')`,
 * `toFloat` is `accurateCastOrNull(…, 'Float64')`, comparisons are `ifNull(equals(…), 0)`, a
 * `team_id` guard is added, and the week is taken in the project's time zone (UTC). So running it
 * is running what PostHog runs for the exported insight, and the collector's ClickHouse store
 * reads with the same expressions (clickhouse-aggregates.ts).
 */
export interface ClickHouseTarget {
  /** The events table (default `events`). */
  table?: string;
  teamId: number;
  /** Weeks back from now to read (default 0: all time, as the collector reads). */
  sinceWeeks?: number;
}

export interface CompiledClickHouse {
  sql: string;
  /** Result columns in order: x, [series], then one per measure. */
  columns: string[];
}

/** PostHog's lowering of `properties.<key>` (posthog/hogql/printer, golden file property_corpus_logical). */
function clickHouseProperty(key: string, table = 'events'): string {
  return `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(${table}.properties, ${quote(key)}), ''), 'null'), '^"|"$', '')`;
}

/**
 * The tiles' expression language over some way of reading a property as PostHog's String
 * (`prop`): the lowering of `toFloat`, comparisons and branches as PostHog's printer writes them.
 */
export function propertyReaders(prop: (key: string) => string, table = 'events'): ExprDialect {
  const float = (k: string) => `accurateCastOrNull(${prop(k)}, 'Float64')`;
  return {
    // A property is a String; a tile counts it only when it casts to a finite number (docs/dashboards.md).
    num: (k) => `if(isFinite(${float(k)}), ${float(k)}, 0)`,
    str: (k) => `coalesce(toString(${prop(k)}), '')`,
    has: (k) => `if(isNotNull(${prop(k)}), 1, 0)`,
    flag: (condition) => `if(${condition}, 1, 0)`,
    equals: (a, b) => `ifNull(equals(${a}, ${b}), 0)`,
    notEquals: (a, b) => `ifNull(notEquals(${a}, ${b}), 1)`,
    byEvent: (cases, otherwise) => `multiIf(${cases.map(([event, value]) => `equals(${table}.event, ${event}), ${value}`).join(', ')}, ${otherwise})`,
    firstOf: (parts) => `coalesce(${parts.map((p) => `nullIf(${p}, '')`).join(', ')}, '')`,
  };
}

function exprDialect(table: string): ExprDialect {
  return propertyReaders((k) => clickHouseProperty(k, table), table);
}

/** The group-sum arithmetic; NULLs sort as SQLite sorts them, and a NaN sum is never "non-zero". */
export const CLICKHOUSE_QUERY: QueryDialect = {
  ratio: (a, b) => `(${a}) / nullIf(${b}, 0)`,
  atLeast: (value, of, min) => `if((${of}) >= (${min}), ${value}, NULL)`,
  cases: (branches, otherwise) => `multiIf(${branches.map(([c, v]) => `${c}, ${v}`).join(', ')}, ${otherwise})`,
  xOut: (xk) => `toString(${xk})`,
  nonZero: (f) => `ifNull(notEquals(${f}, 0) AND NOT isNaN(${f}), 0)`,
  orderKey: (key, desc) => (desc ? `${key} DESC NULLS LAST` : `${key} ASC NULLS FIRST`),
};

export function clickHouseDimension(dim: Dimension, table = 'events'): string {
  if (dim === 'week') return `toStartOfWeek(toTimeZone(${table}.timestamp, 'UTC'), 1)`;
  if (dim === 'install') return `${table}.distinct_id`;
  return renderExpr(dim.expr, exprDialect(table));
}

/** One per-event expression as the ClickHouse target reads it. */
export function clickHouseExpr(e: Expr, table = 'events'): string {
  return renderExpr(e, exprDialect(table));
}

/** The rows a tile reads: its events, the team, and the time bound. */
export function clickHouseWhere(tile: Tile, target: ClickHouseTarget): string {
  const table = target.table ?? 'events';
  const sinceWeeks = target.sinceWeeks ?? 0;
  return [
    `equals(${table}.team_id, ${Math.trunc(target.teamId)})`,
    `in(${table}.event, tuple(${tile.events.map(quote).join(', ')}))`,
    ...(sinceWeeks > 0 ? [`greaterOrEquals(${table}.timestamp, minus(now64(6, 'UTC'), toIntervalWeek(${Math.floor(sinceWeeks)})))`] : []),
  ].join(' AND ');
}

/** A leaf's group aggregate over per-event values: a sum, or the installs where it is non-zero. */
function groupAggregate(plan: TilePlan, i: number, value: string, install: string): string {
  return plan.distinct.has(i) ? `count(DISTINCT if(ifNull(notEquals(${value}, 0), 1), ${install}, NULL))` : `sum(${value})`;
}

/**
 * The plain query: one pass over the raw events. PostHog can hold an event twice until a merge,
 * so the inner query keeps one row per uuid (`GROUP BY uuid` with `any(…)`), as the HogQL does.
 */
export function compileClickHouse(tile: Tile, target: ClickHouseTarget): CompiledClickHouse {
  const plan = planTile(tile);
  const table = target.table ?? 'events';
  const perEvent = [
    `any(${clickHouseDimension(tile.x, table)}) AS x`,
    `any(${tile.series ? clickHouseDimension(tile.series.by, table) : "''"}) AS s`,
    ...(plan.distinct.size > 0 ? [`any(${table}.distinct_id) AS i`] : []),
    ...plan.leaves.map((leaf, i) => `any(${clickHouseExpr(leaf, table)}) AS v${i}`),
  ];
  const once = `SELECT ${table}.uuid AS uuid, ${perEvent.join(', ')} FROM ${table} WHERE ${clickHouseWhere(tile, target)} GROUP BY ${table}.uuid`;
  const groups = `SELECT x AS xk, s AS series, ${plan.leaves.map((_, i) => `${groupAggregate(plan, i, `v${i}`, 'i')} AS f${i}`).join(', ')} FROM (${once}) GROUP BY xk, series`;
  return { sql: renderTileQuery(plan, groups, CLICKHOUSE_QUERY), columns: tileColumns(tile) };
}
