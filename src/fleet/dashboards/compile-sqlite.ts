import type { Dimension, Tile } from './tile-ir.js';
import { planTile, quote, renderExpr, tileColumns, type ExprDialect, type TilePlan } from './tile-plan.js';
import { renderMeasuredGroups, renderTileQuery, type QueryDialect } from './tile-query.js';

/**
 * SQL for the local collector's SQLite store (`events(seq, uuid, event, distinct_id, timestamp ms,
 * properties JSON text)`, one row per uuid). Properties are read as PostHog reads them: SQLite's
 * JSON1 picks the value (`->`), and two functions the store registers (`PROPERTY_FUNCTIONS`) turn
 * it into PostHog's String and a tile's number (posthog-property.ts), so a tile counts the same
 * on SQLite, on ClickHouse and in PostHog. Two forms that differ only in where the per-group
 * sums come from (the rest is one shared text, `renderTileQuery`):
 * - `query`: one pass over the raw events — the plain compiled SQL, the reference the fast path must match;
 * - `read`: over the tile's table of sums kept at ingest (`table`, created by `createTable`),
 *   so reading costs the same whatever the store's size.
 * A tile that keeps its ranked ends also has `ranked`: its groups in the tile's order, indexed.
 */
export interface CompiledSQLite {
  columns: string[];
  query: string;
  table: string;
  createTable: string;
  /** For a tile that counts installs: the (group, leaf, install) pairs already counted, kept beside the sums. */
  seenTable: string | null;
  read: string;
  ranked: RankedSQLite | null;
}

/**
 * A ranked tile's groups in its order, kept beside its sums (ranked-groups.ts): one row per group
 * its `having` keeps, `v` the value of the measure it is ordered by, indexed in the tile's order
 * (ties by xk, as `read` ranks them), so the ends and the median are a few index steps away
 * however many installs there are.
 */
export interface RankedSQLite {
  table: string;
  createTable: string;
  /** The tile's order over `v` and `xk`, and the same order reversed. */
  order: string;
  reversed: string;
  /** x, the measures and xk of the groups whose keys are the one parameter, a JSON array: `read`'s arithmetic for only those rows. */
  rows: string;
}

export const WEEK_MS = 604_800_000;
/** 1970-01-01 was a Thursday; weeks start on the Monday four days later. */
export const MONDAY_OFFSET_MS = 345_600_000;

/** SQLite functions the compiled SQL calls (registered on the connection by the store): PostHog's reading of a property. */
export const PROPERTY_FUNCTIONS = { text: 'posthog_property_text', number: 'posthog_tile_number' } as const;

const keyColumn = (key: string) => `"k_${key}"`;

const EXPR: ExprDialect = {
  num: (k) => `${PROPERTY_FUNCTIONS.number}(${keyColumn(k)})`,
  str: (k) => `coalesce(${keyColumn(k)}, '')`,
  has: (k) => `(${keyColumn(k)} IS NOT NULL)`,
  flag: (condition) => `(${condition})`,
  byEvent: (cases, otherwise) => `CASE event ${cases.map(([event, value]) => `WHEN ${event} THEN ${value}`).join(' ')} ELSE ${otherwise} END`,
  firstOf: (parts) => `coalesce(${parts.map((p) => `nullif(${p}, '')`).join(', ')}, '')`,
};

const QUERY: QueryDialect = {
  ratio: (a, b) => `(${a}) * 1.0 / nullif(${b}, 0)`,
  atLeast: (value, of, min) => `CASE WHEN (${of}) >= (${min}) THEN ${value} END`,
  cases: (branches, otherwise) => `CASE ${branches.map(([c, v]) => `WHEN ${c} THEN ${v}`).join(' ')} ELSE ${otherwise} END`,
  // The week is grouped as an integer (cheap per row) and shown as its Monday's date.
  xOut: (xk) => xk,
};

function dimension(dim: Dimension): string {
  if (dim === 'week') return `((timestamp - ${MONDAY_OFFSET_MS}) / ${WEEK_MS}) * ${WEEK_MS} + ${MONDAY_OFFSET_MS}`;
  if (dim === 'install') return 'distinct_id';
  return renderExpr(dim.expr, EXPR);
}

function extraction(plan: TilePlan): string[] {
  const all = new Set(plan.tile.events);
  return [...plan.keys.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, events]) => {
      const read = `${PROPERTY_FUNCTIONS.text}(properties -> '$."${key}"')`;
      const needed = events === null ? null : [...events].filter((e) => all.has(e));
      if (needed === null || needed.length === all.size) return `${read} AS ${keyColumn(key)}`;
      if (needed.length === 0) return `NULL AS ${keyColumn(key)}`;
      return `CASE WHEN event IN (${needed.map(quote).join(', ')}) THEN ${read} END AS ${keyColumn(key)}`;
    });
}

/** One row per group, from a pass over the raw events. */
function groupsFromEvents(plan: TilePlan): string {
  const { tile } = plan;
  // LIMIT -1 keeps SQLite from flattening the subquery, which would repeat each json_extract per use.
  const rows = `SELECT event, timestamp, distinct_id${extraction(plan)
    .map((c) => `, ${c}`)
    .join('')} FROM events WHERE event IN (${tile.events.map(quote).join(', ')}) LIMIT -1`;
  const columns = [
    `${dimension(tile.x)} AS xk`,
    `${tile.series ? dimension(tile.series.by) : "''"} AS series`,
    ...plan.leaves.map((leaf, i) =>
      plan.distinct.has(i)
        ? `count(DISTINCT CASE WHEN (${renderExpr(leaf, EXPR)}) != 0 THEN distinct_id END) AS f${i}`
        : `sum(${renderExpr(leaf, EXPR)}) AS f${i}`,
    ),
  ];
  return `SELECT ${columns.join(', ')} FROM (${rows}) GROUP BY xk, series`;
}

/** A kept pair's value, as SQLite's sum() finishes: s + c unless c overflowed. */
export function compensatedValue(leaf: number): string {
  return `CASE WHEN abs(c${leaf}) <= 1.7976931348623157e308 THEN s${leaf} + c${leaf} ELSE s${leaf} END`;
}

export function tileTableName(tile: Tile): string {
  return `dash_${tile.id.replace(/-/g, '_')}`;
}

export function compileSQLite(tile: Tile): CompiledSQLite {
  const plan = planTile(tile);
  const table = tileTableName(tile);
  const dialect: QueryDialect = tile.x === 'week' ? { ...QUERY, xOut: (xk) => `strftime('%Y-%m-%d', ${xk} / 1000, 'unixepoch')` } : QUERY;
  // Each sum is kept as a compensated pair (s, c), summed like SQLite's own sum(): the value is
  // s + c, or s alone once the compensation overflowed (c infinite, or NaN, which SQLite keeps as NULL).
  const pairs = plan.leaves.map((_, i) => `s${i} REAL NOT NULL, c${i} REAL`);
  const fromTable = `SELECT xk, series, ${plan.leaves.map((_, i) => `${compensatedValue(i)} AS f${i}`).join(', ')} FROM "${table}"`;
  const seenTable = plan.distinct.size > 0 ? `${table}_seen` : null;
  const createSeen = seenTable
    ? `; CREATE TABLE IF NOT EXISTS "${seenTable}" (xk NOT NULL, series TEXT NOT NULL, leaf INTEGER NOT NULL, install TEXT NOT NULL, PRIMARY KEY (xk, series, leaf, install)) WITHOUT ROWID`
    : '';
  const ranked = tile.keep && tile.order ? rankedSQLite(plan, table, fromTable, dialect) : null;
  return {
    columns: tileColumns(tile),
    query: renderTileQuery(plan, groupsFromEvents(plan), dialect),
    table,
    createTable: `CREATE TABLE IF NOT EXISTS "${table}" (xk NOT NULL, series TEXT NOT NULL, ${pairs.join(', ')}, PRIMARY KEY (xk, series)) WITHOUT ROWID${createSeen}`,
    seenTable,
    read: renderTileQuery(plan, fromTable, dialect),
    ranked,
  };
}

function rankedSQLite(plan: TilePlan, table: string, fromTable: string, dialect: QueryDialect): RankedSQLite {
  const ranked = `${table}_ranked`;
  const desc = plan.tile.order!.desc ?? false;
  const order = `v${desc ? ' DESC' : ''}, xk`;
  return {
    table: ranked,
    createTable: `CREATE TABLE IF NOT EXISTS "${ranked}" (xk NOT NULL PRIMARY KEY, v REAL) WITHOUT ROWID; CREATE INDEX IF NOT EXISTS "${ranked}_order" ON "${ranked}" (${order})`,
    order,
    reversed: `v${desc ? '' : ' DESC'}, xk DESC`,
    rows: renderMeasuredGroups(plan, `${fromTable} WHERE xk IN (SELECT value FROM json_each(?))`, dialect),
  };
}
