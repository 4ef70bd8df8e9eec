import { createHash } from 'node:crypto';
import { CLICKHOUSE_QUERY, clickHouseDimension, clickHouseExpr, clickHouseWhere, propertyReaders } from './compile-clickhouse.js';
import { forEvent, keysOf, type Dimension, type Expr, type Tile } from './tile-ir.js';
import { planTile, quote, renderExpr, tileColumns, type TilePlan } from './tile-plan.js';
import { renderTileQuery } from './tile-query.js';

/**
 * The tiles kept incrementally in ClickHouse, all in one AggregatingMergeTree: a row per tile,
 * x and series holding the group's states as arrays (`sumForEach` for sums — Kahan summation
 * would turn an overflow into NaN where `sum` and SQLite give inf — and `uniqExactForEach` of the
 * install for installs counts). One table makes reading every tile one GROUP BY: a UNION of a
 * query per tile cost about 8 ms per tile in planning alone. Each tile's materialized view feeds
 * it from the rows a guarded insert accepts. Those rows carry, beside PostHog's columns, each
 * property the tiles read as PostHog's String (`p:<key>`, computed by the collector with
 * posthog-property.ts): the JSON is not parsed again for every tile. The views' states equal the
 * plain query's sums (compile-clickhouse.ts, PostHog's own lowering) over the same rows; the
 * tests hold them to it. A tile's view counts rows accepted after a moment T (`_inserted_at`) and
 * its backfill — the plain per-event expressions over `events` — the rows up to T, so a tile
 * created while events arrive counts each once. A tile's rows are keyed by a hash of its
 * definition, so a changed tile is counted anew under a new key.
 */
export interface AggregateTarget {
  /** Database-qualified: the events table, the accepted-rows table the views read, the tiles' table, and the prefix of the views. */
  events: string;
  accepted: string;
  table: string;
  prefix: string;
  teamId: number;
}

export interface ClickHouseTileAggregate {
  tileId: string;
  /** The tile's rows in the tiles' table (its `tile` column) and its name in `memtrace_ready`. */
  key: string;
  view: string;
  columns: string[];
  createView(fromTime: string): string;
  backfill(throughTime: string): string;
  /** Removes what an interrupted build counted under this key. */
  clear: string;
  /** The tile's rows by SQL (renderTileQuery over the merged states). */
  read: string;
  /** The merged sums (`sums`) and installs counts (`installs`) of a group, back in the order of the plan's leaves. */
  leafValues(sums: readonly number[], installs: readonly number[]): number[];
}

/** Bump when the kept states change meaning (not only the SQL text), so stored aggregates are rebuilt. */
const AGGREGATE_VERSION = 2;

export const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);
/** The column of the accepted rows holding a property's PostHog String. */
export const propertyColumn = (key: string) => `\`p:${key}\``;
const sqlName = (name: string) => name.replace(/[^a-z0-9_]/gi, '_');

/** The tiles' table: one row of states per tile, x and series. */
export const tileTableColumns =
  'tile LowCardinality(String), xk String, series String, s AggregateFunction(sumForEach, Array(Float64)), u AggregateFunction(uniqExactForEach, Array(Nullable(String)))';
export const tileTableDefinition = (table: string) =>
  `CREATE TABLE IF NOT EXISTS ${table} (${tileTableColumns}) ENGINE = AggregatingMergeTree ORDER BY (tile, xk, series)`;
/** Every tile's merged groups in one query: tile key, x as shown, series, sums and installs counts as text (inf and nan kept). */
export const tileGroupsQuery = (table: string, keys: readonly string[]) =>
  `SELECT tile, xk AS x, series, arrayMap(v -> toString(v), sumForEachMerge(s)) AS sums, arrayMap(v -> toString(v), uniqExactForEachMerge(u)) AS installs FROM ${table} WHERE tile IN (${keys.map(quote).join(', ')}) GROUP BY tile, xk, series`;

function tileExpressions(plan: TilePlan): Expr[] {
  const dims = [plan.tile.x, plan.tile.series?.by].filter((d): d is Exclude<Dimension, 'week' | 'install'> => typeof d === 'object');
  return [...plan.leaves, ...dims.map((d) => d.expr)];
}

/** Per event name, the property keys some tile reads from it: what the collector computes for each row. */
export function propertiesByEvent(tiles: readonly Tile[]): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const tile of tiles) {
    const plan = planTile(tile);
    for (const event of tile.events) {
      const keys = out.get(event) ?? new Set<string>();
      for (const e of tileExpressions(plan)) keysOf(forEvent(e, event), keys);
      out.set(event, keys);
    }
  }
  return new Map([...out].map(([event, keys]) => [event, [...keys].sort()]));
}

export function clickHouseTileAggregate(tile: Tile, target: AggregateTarget): ClickHouseTileAggregate {
  const plan = planTile(tile);
  const sumLeaves = plan.leaves.flatMap((_, i) => (plan.distinct.has(i) ? [] : [i]));
  const installLeaves = plan.leaves.flatMap((_, i) => (plan.distinct.has(i) ? [i] : []));
  const states = (leaf: (i: number) => string, install: string) =>
    [
      `sumForEachState(${sumLeaves.length === 0 ? "CAST([], 'Array(Float64)')" : `[${sumLeaves.map((i) => `toFloat64(ifNull(${leaf(i)}, 0))`).join(', ')}]`}) AS s`,
      `uniqExactForEachState(${
        installLeaves.length === 0
          ? "CAST([], 'Array(Nullable(String))')"
          : `[${installLeaves.map((i) => `if(ifNull(notEquals(${leaf(i)}, 0), 1), ${install}, NULL)`).join(', ')}]`
      }) AS u`,
    ].join(', ');
  const accepted = target.accepted;
  const readers = propertyReaders((k) => `${accepted}.${propertyColumn(k)}`, accepted);
  const dim = (d: Dimension) =>
    d === 'week' ? `toStartOfWeek(toTimeZone(${accepted}.timestamp, 'UTC'), 1)` : d === 'install' ? `${accepted}.distinct_id` : renderExpr(d.expr, readers);
  const select = (key: string, x: string, series: string, leaf: (i: number) => string, install: string, from: string) =>
    `SELECT ${quote(key)} AS tile, toString(${x}) AS xk, ${series} AS series, ${states(leaf, install)} FROM ${from}`;
  const viewSelect = (key: string, time: string) =>
    `${select(key, dim(tile.x), tile.series ? dim(tile.series.by) : "''", (i) => renderExpr(plan.leaves[i]!, readers), `${accepted}.distinct_id`, accepted)} WHERE ${clickHouseWhere(tile, { table: accepted, teamId: target.teamId })} AND greater(${accepted}._inserted_at, ${time}) GROUP BY xk, series`;
  const events = target.events;
  const backfillSelect = (key: string, time: string) =>
    `${select(key, clickHouseDimension(tile.x, events), tile.series ? clickHouseDimension(tile.series.by, events) : "''", (i) => clickHouseExpr(plan.leaves[i]!, events), `${events}.distinct_id`, events)} WHERE ${clickHouseWhere(tile, { table: events, teamId: target.teamId })} AND lessOrEquals(${events}._inserted_at, ${time}) GROUP BY xk, series`;
  const key = `tile_${shortHash(`v${AGGREGATE_VERSION}\n${viewSelect('', 'T')}\n${backfillSelect('', 'T')}`)}_${sqlName(tile.id)}`;
  const time = (t: string) => `toDateTime64(${quoteTime(t)}, 6, 'UTC')`;
  const merged = plan.leaves.map((_, i) =>
    plan.distinct.has(i)
      ? `arrayElement(uniqExactForEachMerge(u), ${installLeaves.indexOf(i) + 1}) AS f${i}`
      : `arrayElement(sumForEachMerge(s), ${sumLeaves.indexOf(i) + 1}) AS f${i}`,
  );
  return {
    tileId: tile.id,
    key,
    view: `${target.prefix}${key}_mv`,
    columns: tileColumns(tile),
    createView: (fromTime) => `CREATE MATERIALIZED VIEW IF NOT EXISTS ${target.prefix}${key}_mv TO ${target.table} AS ${viewSelect(key, time(fromTime))}`,
    backfill: (throughTime) => `INSERT INTO ${target.table} ${backfillSelect(key, time(throughTime))}`,
    clear: `ALTER TABLE ${target.table} DELETE WHERE tile = ${quote(key)} SETTINGS mutations_sync = 2`,
    read: renderTileQuery(
      plan,
      `SELECT xk, series, ${merged.join(', ')} FROM ${target.table} WHERE tile = ${quote(key)} GROUP BY xk, series`,
      CLICKHOUSE_QUERY,
    ),
    leafValues(sums, installs) {
      return plan.leaves.map((_, i) => (plan.distinct.has(i) ? (installs[installLeaves.indexOf(i)] ?? 0) : (sums[sumLeaves.indexOf(i)] ?? 0)));
    },
  };
}

/** A server time as ClickHouse prints it (`2026-11-27 10:00:00.000000`); nothing else is spliced in. */
function quoteTime(t: string): string {
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$/.test(t)) throw new Error(`clickhouse aggregate: ${JSON.stringify(t)} is not a server time`);
  return `'${t}'`;
}
