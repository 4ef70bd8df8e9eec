import type { Dimension, Tile } from './tile-ir.js';
import { planTile, quote, renderAggregate, renderExpr, type ExprDialect, type TilePlan } from './tile-plan.js';

/**
 * SQL for the local collector's SQLite store (`events(seq, uuid, event, distinct_id, timestamp ms,
 * properties JSON text)`, one row per uuid). Properties are read with JSON1 `json_extract`, each
 * key once per row and only on the rows of the events that use it.
 *
 * Two forms of the same plan:
 * - `query`: one pass over the raw events, for ad-hoc use and to check the other form;
 * - `createTable` / `maintain` / `read`: a small table of per-group sums, kept up to date from
 *   new rows (`seq` in (@from, @to]) and read by the dashboard — every measure is arithmetic over
 *   sums, so adding new rows' sums to the stored ones gives exactly what a full pass would.
 */
export interface CompiledSQLite {
  columns: string[];
  query: string;
  table: string;
  createTable: string;
  maintain: string;
  read: string;
}

const WEEK_MS = 604_800_000;
/** 1970-01-01 was a Thursday; weeks start on the Monday four days later. */
const MONDAY_OFFSET_MS = 345_600_000;

const keyColumn = (key: string) => `"k_${key}"`;

const EXPR: ExprDialect = {
  num: (k) => `coalesce(CAST(${keyColumn(k)} AS REAL), 0)`,
  str: (k) => `coalesce(CAST(${keyColumn(k)} AS TEXT), '')`,
  has: (k) => `(${keyColumn(k)} IS NOT NULL)`,
  flag: (condition) => `(${condition})`,
  byEvent: (cases, otherwise) => `CASE event ${cases.map(([event, value]) => `WHEN ${event} THEN ${value}`).join(' ')} ELSE ${otherwise} END`,
  firstOf: (parts) => `coalesce(${parts.map((p) => `nullif(${p}, '')`).join(', ')}, '')`,
};

function dimension(dim: Dimension): string {
  if (dim === 'week') return `((timestamp - ${MONDAY_OFFSET_MS}) / ${WEEK_MS}) * ${WEEK_MS} + ${MONDAY_OFFSET_MS}`;
  if (dim === 'install') return 'distinct_id';
  return renderExpr(dim.expr, EXPR);
}

/** The week is grouped as an integer (cheap per row) and shown as its Monday's date. */
const xOut = (dim: Dimension) => (dim === 'week' ? `strftime('%Y-%m-%d', xk / 1000, 'unixepoch')` : 'xk');

function extraction(plan: TilePlan): string[] {
  const all = new Set(plan.tile.events);
  return [...plan.keys.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, events]) => {
      const read = `json_extract(properties, '$."${key}"')`;
      const needed = events === null ? null : [...events].filter((e) => all.has(e));
      if (needed === null || needed.length === all.size) return `${read} AS ${keyColumn(key)}`;
      if (needed.length === 0) return `NULL AS ${keyColumn(key)}`;
      return `CASE WHEN event IN (${needed.map(quote).join(', ')}) THEN ${read} END AS ${keyColumn(key)}`;
    });
}

function leafRows(plan: TilePlan, range: boolean): string {
  const { tile } = plan;
  const where = [`event IN (${tile.events.map(quote).join(', ')})`, ...(range ? ['seq > @from', 'seq <= @to'] : [])].join(' AND ');
  // LIMIT -1 keeps SQLite from flattening the subquery, which would repeat each json_extract per use.
  const rows = `SELECT event, timestamp, distinct_id${extraction(plan).map((c) => `, ${c}`).join('')} FROM events WHERE ${where} LIMIT -1`;
  const columns = [
    `${dimension(tile.x)} AS xk`,
    `${tile.series ? dimension(tile.series) : "''"} AS series`,
    ...plan.leaves.map((leaf, i) => `${renderExpr(leaf, EXPR)} AS f${i}`),
  ];
  return `SELECT ${columns.join(', ')} FROM (${rows})`;
}

function outer(plan: TilePlan, from: string): string {
  const { tile } = plan;
  const agg = {
    sum: (i: number) => `sum(f${i})`,
    xTotal: (i: number) => (tile.series ? `sum(sum(f${i})) OVER (PARTITION BY xk)` : `sum(f${i})`),
    ratio: (a: string, b: string) => `(${a}) * 1.0 / nullif(${b}, 0)`,
  };
  const select = [`${xOut(tile.x)} AS x`, ...(tile.series ? ['series'] : []), ...plan.measures.map((m) => `${renderAggregate(m.agg, agg)} AS ${m.name}`)];
  const order = tile.order ? `${tile.order.by}${tile.order.desc ? ' DESC' : ''}, xk, series` : 'xk, series';
  return [
    `SELECT ${select.join(', ')} FROM ${from} GROUP BY xk, series`,
    ...(plan.having === null ? [] : [`HAVING sum(f${plan.having}) != 0`]),
    `ORDER BY ${order}`,
    ...(tile.limit ? [`LIMIT ${tile.limit}`] : []),
  ].join(' ');
}

export function tileTableName(tile: Tile): string {
  return `dash_${tile.id.replace(/-/g, '_')}`;
}

export function compileSQLite(tile: Tile): CompiledSQLite {
  const plan = planTile(tile);
  const table = tileTableName(tile);
  const sums = plan.leaves.map((_, i) => `f${i}`);
  return {
    columns: ['x', ...(tile.series ? ['series'] : []), ...plan.measures.map((m) => m.name)],
    query: outer(plan, `(${leafRows(plan, false)})`),
    table,
    createTable: `CREATE TABLE IF NOT EXISTS "${table}" (xk NOT NULL, series TEXT NOT NULL, ${sums.map((f) => `${f} REAL NOT NULL`).join(', ')}, PRIMARY KEY (xk, series)) WITHOUT ROWID`,
    maintain: `INSERT INTO "${table}" (xk, series, ${sums.join(', ')}) SELECT xk, series, ${sums.map((f) => `sum(${f})`).join(', ')} FROM (${leafRows(plan, true)}) GROUP BY xk, series ON CONFLICT (xk, series) DO UPDATE SET ${sums.map((f) => `${f} = ${f} + excluded.${f}`).join(', ')}`,
    read: outer(plan, `"${table}"`),
  };
}
