import type { Aggregate, Dimension, Expr, Tile } from './tile-ir.js';

/** One dialect: how each IR node is written. The query shape is shared. */
interface Dialect {
  num(key: string): string;
  str(key: string): string;
  isEvent(name: string): string;
  eq(a: string, value: string): string;
  either(a: string, b: string): string;
  week: string;
  install: string;
  ratio(a: string, b: string): string;
  /** The per-event source: dedup by uuid where the store does not guarantee it. */
  source(columns: string[], eventsIn: string, sinceClause: string, keys: string[]): string;
  since(weeks: number): string;
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
/** Property keys are schema names; anything else would be an injection, so refuse it. */
const safeKey = (key: string) => {
  if (!/^\$?[a-z_][a-z0-9_]*$/i.test(key)) throw new Error(`unsafe property key ${key}`);
  return key;
};

const HOGQL: Dialect = {
  num: (k) => `coalesce(toFloat(properties.${safeKey(k)}), 0)`,
  str: (k) => `coalesce(toString(properties.${safeKey(k)}), '')`,
  isEvent: (n) => `if(event = ${quote(n)}, 1, 0)`,
  eq: (a, v) => `if(${a} = ${quote(v)}, 1, 0)`,
  either: (a, b) => `if((${a}) != 0 OR (${b}) != 0, 1, 0)`,
  week: 'toStartOfWeek(timestamp, 1)',
  install: 'distinct_id',
  ratio: (a, b) => `(${a}) / nullIf(${b}, 0)`,
  // PostHog may hold an event twice until its merge runs: one row per uuid before summing.
  source: (columns, eventsIn, since) => `SELECT uuid, ${columns.map((c) => `any(${c.replace(/ AS (\w+)$/, ') AS $1')}`).join(', ')} FROM events WHERE event IN (${eventsIn})${since} GROUP BY uuid`,
  since: (weeks) => ` AND timestamp >= now() - INTERVAL ${weeks} WEEK`,
};

const column = (k: string) => `"p_${safeKey(k)}"`;

const SQLITE: Dialect = {
  num: (k) => `coalesce(CAST(${column(k)} AS REAL), 0)`,
  str: (k) => `coalesce(CAST(${column(k)} AS TEXT), '')`,
  isEvent: (n) => `(event = ${quote(n)})`,
  eq: (a, v) => `(${a} = ${quote(v)})`,
  either: (a, b) => `((${a}) != 0 OR (${b}) != 0)`,
  week: "date(timestamp / 1000, 'unixepoch', '-6 days', 'weekday 1')",
  install: 'distinct_id',
  ratio: (a, b) => `(${a}) * 1.0 / nullif(${b}, 0)`,
  // The collector keeps one row per uuid (primary key), so no dedup pass is needed; each
  // property is read out of the JSONB once per row, however many measures use it.
  source: (columns, eventsIn, since, keys) =>
    `SELECT ${columns.join(', ')} FROM (SELECT event, timestamp, distinct_id${keys.map((k) => `, properties ->> '$."${safeKey(k)}"' AS ${column(k)}`).join('')} FROM events WHERE event IN (${eventsIn})${since})`,
  since: (weeks) => ` AND timestamp >= (CAST(strftime('%s', 'now') AS INTEGER) - ${weeks} * 604800) * 1000`,
};

function propertyKeys(e: Expr, into: Set<string>): Set<string> {
  if ('num' in e) into.add(e.num);
  else if ('str' in e) into.add(e.str);
  else if ('eq' in e) propertyKeys(e.eq[0], into);
  else if ('either' in e) e.either.forEach((p) => propertyKeys(p, into));
  else if ('mul' in e) e.mul.forEach((p) => propertyKeys(p, into));
  else if ('add' in e) e.add.forEach((p) => propertyKeys(p, into));
  else if ('firstOf' in e) e.firstOf.forEach((p) => propertyKeys(p, into));
  return into;
}

function expr(d: Dialect, e: Expr): string {
  if ('num' in e) return d.num(e.num);
  if ('str' in e) return d.str(e.str);
  if ('lit' in e) return String(e.lit);
  if ('isEvent' in e) return d.isEvent(e.isEvent);
  if ('eq' in e) return d.eq(expr(d, e.eq[0]), e.eq[1]);
  if ('either' in e) return d.either(expr(d, e.either[0]), expr(d, e.either[1]));
  if ('mul' in e) return `(${expr(d, e.mul[0])}) * (${expr(d, e.mul[1])})`;
  if ('add' in e) return `(${e.add.map((p) => expr(d, p)).join(' + ')})`;
  return `coalesce(${e.firstOf.map((p) => `nullif(${expr(d, p)}, '')`).join(', ')}, '')`;
}

function dimension(d: Dialect, dim: Dimension): string {
  if (dim === 'week') return d.week;
  if (dim === 'install') return d.install;
  return expr(d, dim.expr);
}

export interface CompiledTile {
  sql: string;
  columns: string[];
}

/** Both dialects produce: x, [series], one column per measure. */
function compile(d: Dialect, tile: Tile, options: { sinceWeeks?: number }): CompiledTile {
  const leaves: Expr[] = [];
  const leaf = (e: Expr) => {
    leaves.push(e);
    return `f${leaves.length - 1}`;
  };
  const agg = (a: Aggregate): string => {
    if ('sum' in a) return `sum(${leaf(a.sum)})`;
    if ('ratio' in a) return d.ratio(agg(a.ratio[0]), agg(a.ratio[1]));
    return `(${agg(a.product[0])}) * (${agg(a.product[1])})`;
  };
  const measures = tile.measures.map((m) => `${agg(m.agg)} AS ${m.name}`);
  const having = tile.having ? ` HAVING sum(${leaf(tile.having.nonZero)}) != 0` : '';
  const inner = [
    `${dimension(d, tile.x)} AS x`,
    ...(tile.series ? [`${dimension(d, tile.series)} AS series`] : []),
    ...leaves.map((e, i) => `${expr(d, e)} AS f${i}`),
  ];
  const groups = tile.series ? 'x, series' : 'x';
  const keys = new Set<string>();
  for (const e of leaves) propertyKeys(e, keys);
  for (const dim of [tile.x, tile.series]) if (dim && typeof dim === 'object') propertyKeys(dim.expr, keys);
  const source = d.source(inner, tile.events.map(quote).join(', '), options.sinceWeeks ? d.since(options.sinceWeeks) : '', [...keys].sort());
  const sql = `SELECT ${groups}, ${measures.join(', ')} FROM (${source}) GROUP BY ${groups}${having} ORDER BY ${groups}`;
  return { sql, columns: ['x', ...(tile.series ? ['series'] : []), ...tile.measures.map((m) => m.name)] };
}

export const compileHogQL = (tile: Tile, options: { sinceWeeks?: number } = { sinceWeeks: 26 }) => compile(HOGQL, tile, options);
export const compileSQLite = (tile: Tile, options: { sinceWeeks?: number } = {}) => compile(SQLITE, tile, options);
