import { createHash } from 'node:crypto';
import { CLICKHOUSE_QUERY, clickHouseDimension, clickHouseExpr, clickHouseWhere, propertyReaders } from './compile-clickhouse.js';
import { forEvent, keysOf, type Dimension, type Expr, type Tile } from './tile-ir.js';
import { planTile, quote, renderExpr, type TilePlan } from './tile-plan.js';
import { renderTileQuery } from './tile-query.js';

/**
 * The tiles kept incrementally in ClickHouse. Each tile is an AggregatingMergeTree of per-group
 * states (`sum` for sums — Kahan summation would turn an overflow into NaN where `sum` and SQLite give inf — `uniqExact` of the install for installs counts), fed by a
 * materialized view over the rows a guarded insert accepts. Those rows carry, beside PostHog's
 * columns, each property the tiles read as PostHog's String (`p:<key>`, computed by the collector
 * with posthog-property.ts): the JSON is not parsed again for every tile. The views' states equal
 * the plain query's sums (compile-clickhouse.ts, PostHog's own lowering) over the same rows; the
 * tests hold them to it. A tile's view counts rows accepted after a moment T (`_inserted_at`) and
 * its backfill — the plain per-event expressions over `events` — the rows up to T, so a tile
 * created while events arrive counts each once.
 */
export interface AggregateTarget {
  /** Database-qualified: the events table, the accepted-rows table the views read, and the prefix of the tile tables. */
  events: string;
  accepted: string;
  prefix: string;
  teamId: number;
}

export interface ClickHouseTileAggregate {
  tileId: string;
  table: string;
  view: string;
  columns: string[];
  createTable: string;
  createView(fromTime: string): string;
  backfill(throughTime: string): string;
  /** The tile's rows by SQL (renderTileQuery over the merged states). */
  read: string;
  /** The merged group sums as one `UNION ALL` part: tile id, x as shown, series, every sum as text (inf and nan kept). */
  groups: string;
}

/** Bump when the kept states change meaning (not only the SQL text), so stored aggregates are rebuilt. */
const AGGREGATE_VERSION = 1;

export const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);
/** The column of the accepted rows holding a property's PostHog String. */
export const propertyColumn = (key: string) => `\`p:${key}\``;
const sqlName = (name: string) => name.replace(/[^a-z0-9_]/gi, '_');

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
  const stateOf = (i: number, leaf: string, install: string) =>
    plan.distinct.has(i) ? `uniqExactState(if(ifNull(notEquals(${leaf}, 0), 1), ${install}, NULL))` : `sumState(toFloat64(ifNull(${leaf}, 0)))`;
  const accepted = target.accepted;
  const readers = propertyReaders((k) => `${accepted}.${propertyColumn(k)}`, accepted);
  const dim = (d: Dimension) =>
    d === 'week' ? `toStartOfWeek(toTimeZone(${accepted}.timestamp, 'UTC'), 1)` : d === 'install' ? `${accepted}.distinct_id` : renderExpr(d.expr, readers);
  const viewSelect = (time: string) =>
    [
      `SELECT ${dim(tile.x)} AS xk, ${tile.series ? dim(tile.series.by) : "''"} AS series`,
      ...plan.leaves.map((leaf, i) => `, ${stateOf(i, renderExpr(leaf, readers), `${accepted}.distinct_id`)} AS f${i}`),
      ` FROM ${accepted} WHERE ${clickHouseWhere(tile, { table: accepted, teamId: target.teamId })} AND greater(${accepted}._inserted_at, ${time}) GROUP BY xk, series`,
    ].join('');
  const backfillSelect = (time: string) =>
    [
      `SELECT ${clickHouseDimension(tile.x, target.events)} AS xk, ${tile.series ? clickHouseDimension(tile.series.by, target.events) : "''"} AS series`,
      ...plan.leaves.map((leaf, i) => `, ${stateOf(i, clickHouseExpr(leaf, target.events), `${target.events}.distinct_id`)} AS f${i}`),
      ` FROM ${target.events} WHERE ${clickHouseWhere(tile, { table: target.events, teamId: target.teamId })} AND lessOrEquals(${target.events}._inserted_at, ${time}) GROUP BY xk, series`,
    ].join('');
  const xType = tile.x === 'week' ? 'Date' : 'String';
  const states = plan.leaves.map((_, i) =>
    plan.distinct.has(i) ? `f${i} AggregateFunction(uniqExact, Nullable(String))` : `f${i} AggregateFunction(sum, Float64)`,
  );
  const table = `${target.prefix}${shortHash(`v${AGGREGATE_VERSION}\n${viewSelect('T')}\n${backfillSelect('T')}\n${states.join()}`)}_${sqlName(tile.id)}`;
  const time = (t: string) => `toDateTime64(${quoteTime(t)}, 6, 'UTC')`;
  const merged = plan.leaves.map((_, i) => (plan.distinct.has(i) ? `uniqExactMerge(f${i}) AS f${i}` : `sumMerge(f${i}) AS f${i}`));
  return {
    tileId: tile.id,
    table,
    view: `${table}_mv`,
    columns: ['x', ...(tile.series ? ['series'] : []), ...plan.measures.map((m) => m.name)],
    createTable: `CREATE TABLE IF NOT EXISTS ${table} (xk ${xType}, series String, ${states.join(', ')}) ENGINE = AggregatingMergeTree ORDER BY (xk, series)`,
    createView: (fromTime) => `CREATE MATERIALIZED VIEW IF NOT EXISTS ${table}_mv TO ${table} AS ${viewSelect(time(fromTime))}`,
    backfill: (throughTime) => `INSERT INTO ${table} ${backfillSelect(time(throughTime))}`,
    read: renderTileQuery(plan, `SELECT xk, series, ${merged.join(', ')} FROM ${table} GROUP BY xk, series`, CLICKHOUSE_QUERY),
    groups: `SELECT ${quote(tile.id)} AS tile, toString(xk) AS x, series, [${plan.leaves
      .map((_, i) => `toString(${plan.distinct.has(i) ? `uniqExactMerge(f${i})` : `sumMerge(f${i})`})`)
      .join(', ')}] AS sums FROM ${table} GROUP BY xk, series`,
  };
}

/** A server time as ClickHouse prints it (`2026-11-27 10:00:00.000000`); nothing else is spliced in. */
function quoteTime(t: string): string {
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$/.test(t)) throw new Error(`clickhouse aggregate: ${JSON.stringify(t)} is not a server time`);
  return `'${t}'`;
}
