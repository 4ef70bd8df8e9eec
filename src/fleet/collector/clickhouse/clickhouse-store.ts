import { silentLogger, type Logger } from '../../../log.js';
import { shortHash, tileGroupsQuery } from '../../dashboards/clickhouse-aggregates.js';
import { compileClickHouse } from '../../dashboards/compile-clickhouse.js';
import type { Tile } from '../../dashboards/tile-ir.js';
import { tileRowsFromGroups, type GroupSums } from '../../dashboards/tile-measures.js';
import { planTile } from '../../dashboards/tile-plan.js';
import { finiteCells, type TileResult, type TileRow } from '../../dashboards/tile-result.js';
import { TILES } from '../../dashboards/tiles.js';
import { REVIEW_SUMS_TILE } from '../../review/review-sums-tile.js';
import { reviewSourceFromRows } from '../../review/tile-rows-review-source.js';
import type { CollectedEvent } from '../collected-event.js';
import type { FleetStore, InsertOutcome } from '../fleet-store.js';
import { storedProperties } from '../stored-properties.js';
import { ClickHouseStoreError, type ClickHouseConnection } from './clickhouse-connection.js';
import { COLLECTOR_TEAM_ID, collectorSchema, type CollectorSchema } from './clickhouse-schema.js';
import { ensureCollectorSchema } from './schema-setup.js';
import { TILE_RESULTS_VERSION, tileResults } from './tile-results.js';

export interface ClickHouseStoreOptions {
  database: string;
  tiles?: readonly Tile[];
  /**
   * How far ahead of the server's clock a new tile view starts counting, so a backfill and the
   * view split the events exactly while other collectors insert (0 when only this process writes).
   */
  handoffMs: number;
  log?: Logger;
  sleep?: (ms: number) => Promise<void>;
  onProgress?: (line: string) => void;
}

/** A Float64 as ClickHouse's toString writes it, inf and nan included. */
function parseFloatText(text: string): number {
  if (text === 'inf' || text === '+inf') return Number.POSITIVE_INFINITY;
  if (text === '-inf') return Number.NEGATIVE_INFINITY;
  if (text === 'nan' || text === '-nan') return Number.NaN;
  return Number(text);
}

/**
 * The oldest server the store's SQL runs on: EmbeddedRocksDB read by key in a direct join,
 * accurateCastOrNull, now64 and toIntervalMillisecond (measured on 26.7, the engine chdb ships).
 */
const MIN_VERSION = [23, 3] as const;

function atLeast(version: string, min: readonly number[]): boolean {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < min.length; i += 1) {
    if ((parts[i] ?? 0) !== min[i]) return (parts[i] ?? 0) > min[i]!;
  }
  return true;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The collector's events and tiles in ClickHouse. Inserts are one exclusive statement per batch
 * into the inbox, whose view keeps only uuids not yet stored; tiles are read, in one query, from
 * the aggregating table their views keep (clickhouse-schema.ts). Nothing that matters lives in
 * the process: a second collector on the same server serves the same numbers. Every tile's rows
 * are computed from the states at opening and after each insert that stored events, and kept
 * (tile-results.ts), so a read is one small query whatever the number of installs.
 */
export async function openClickHouseStore(connection: ClickHouseConnection, options: ClickHouseStoreOptions): Promise<FleetStore> {
  const tiles = options.tiles ?? TILES;
  const schema: CollectorSchema = collectorSchema(options.database, [...tiles, REVIEW_SUMS_TILE]);
  // Fails fast, in one line, on a server that is not there, refuses the credentials, lacks the database or is too old.
  const [server] = await connection.rows<{ version: string }>('SELECT version() AS version');
  if (!atLeast(server?.version ?? '0', MIN_VERSION))
    throw new ClickHouseStoreError(
      'query',
      `${connection.where} runs ClickHouse ${server?.version}; the collector store needs ${MIN_VERSION.join('.')} or newer`,
    );
  await ensureCollectorSchema(connection, schema, {
    handoffMs: options.handoffMs,
    log: options.log ?? silentLogger,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms).unref())),
    onProgress: options.onProgress,
  });
  const aggregateOf = new Map(schema.aggregates.map((a) => [a.tileId, a]));
  const plans = new Map(tiles.map((tile) => [tile.id, planTile(tile)]));
  const review = aggregateOf.get(REVIEW_SUMS_TILE.id)!;
  const count = async () => Number((await connection.rows<{ n: number }>(`SELECT count() AS n FROM ${schema.events}`))[0]?.n ?? 0);
  const timed = async (tile: Tile, columns: string[], sql: string): Promise<TileResult> => {
    const started = performance.now();
    const rows = finiteCells(await connection.rows<TileRow>(sql));
    return { tile, columns, rows, ms: performance.now() - started };
  };
  const results = tileResults(connection, schema.results);
  const resultKey = (tile: Tile) => {
    const aggregate = aggregateOf.get(tile.id)!;
    return `${aggregate.key}_${shortHash(`${TILE_RESULTS_VERSION}\n${aggregate.read}`)}`;
  };
  /**
   * Every tile from the kept states: the few hundred groups of most tiles in one query, made rows
   * in JavaScript (tile-measures.ts); a tile that keeps its ranked ends is ranked and cut in
   * ClickHouse, so its thousands of per-install groups never leave the server.
   */
  const computeTiles = async (): Promise<TileResult[]> => {
    const grouped = tiles.filter((tile) => !tile.keep);
    const byKey = new Map(grouped.map((tile) => [aggregateOf.get(tile.id)!.key, aggregateOf.get(tile.id)!]));
    const groups = new Map<string, GroupSums[]>(grouped.map((t) => [t.id, []]));
    const sql = tileGroupsQuery(schema.tiles, [...byKey.keys()]);
    for (const row of byKey.size === 0 ? [] : await connection.rows<{ tile: string; x: string; series: string; sums: string[]; installs: string[] }>(sql)) {
      const aggregate = byKey.get(row.tile);
      if (aggregate === undefined) continue;
      const sums = aggregate.leafValues(row.sums.map(parseFloatText), row.installs.map(Number));
      groups.get(aggregate.tileId)!.push({ x: row.x, series: row.series, sums });
    }
    const out: TileResult[] = [];
    for (const tile of tiles) {
      const aggregate = aggregateOf.get(tile.id)!;
      if (tile.keep) {
        out.push(await timed(tile, aggregate.columns, aggregate.read));
        continue;
      }
      const started = performance.now();
      const rows = finiteCells(tileRowsFromGroups(plans.get(tile.id)!, groups.get(tile.id)!));
      out.push({ tile, columns: aggregate.columns, rows, ms: performance.now() - started });
    }
    return out;
  };
  // Set until the rows are kept again: an insert whose refresh failed is retried as duplicates, which store nothing.
  let stale = true;
  const refresh = async (): Promise<TileResult[]> => {
    stale = true;
    const readAt = await results.now();
    const computed = await computeTiles();
    await results.write(readAt, new Map(computed.map((r) => [resultKey(r.tile), r.rows])));
    stale = false;
    return computed;
  };
  // Rows kept by an earlier run may predate a tile rebuilt at this opening: count them anew once.
  await refresh();
  return {
    where: connection.where,
    async insert(events: readonly CollectedEvent[]): Promise<InsertOutcome> {
      // The first copy of a uuid in the batch is the one kept, as SQLite's INSERT OR IGNORE keeps it.
      const seen = new Set<string>();
      const lines: string[] = [];
      for (const e of events) {
        if (!UUID.test(e.uuid)) throw new TypeError(`event uuid ${JSON.stringify(e.uuid)} is not a UUID`);
        const uuid = e.uuid.toLowerCase();
        if (seen.has(uuid)) continue;
        seen.add(uuid);
        const stored = storedProperties(e.properties);
        lines.push(schema.inboxRow({ ...e, uuid }, stored.properties, stored.json));
      }
      if (lines.length === 0) {
        if (stale) await refresh();
        return { stored: 0, duplicates: events.length };
      }
      // The count is for reporting only (exact with one writer); the guard itself is the statement below.
      const before = await count();
      await connection.insertRows(schema.inbox, lines.join('\n'), { exclusive: true });
      const stored = Math.min(lines.length, Math.max(0, (await count()) - before));
      if (stored > 0 || stale) await refresh();
      return { stored, duplicates: events.length - stored };
    },
    count,
    async readTiles() {
      if (stale) return refresh();
      const started = performance.now();
      const kept = await results.read(tiles.map(resultKey));
      if (!tiles.every((tile) => kept.has(resultKey(tile)))) return refresh();
      // One query read them all: each tile's time is that query's.
      const ms = performance.now() - started;
      return tiles.map((tile) => ({ tile, columns: aggregateOf.get(tile.id)!.columns, rows: kept.get(resultKey(tile))!, ms }));
    },
    async queryTilesPlain() {
      const out: TileResult[] = [];
      for (const tile of tiles) {
        const compiled = compileClickHouse(tile, { table: schema.events, teamId: COLLECTOR_TEAM_ID });
        out.push(await timed(tile, compiled.columns, compiled.sql));
      }
      return out;
    },
    reviewSource() {
      const quoted = (versions: readonly string[]) => versions.map((v) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ');
      return reviewSourceFromRows(
        {
          rows: (versions) => connection.rows<TileRow>(`SELECT * FROM (${review.read}) WHERE series IN (${quoted(versions)})`),
          versions: () =>
            connection.rows(`SELECT series AS version, count() AS installs, sum(memtrace_events) AS memtrace_events FROM (${review.read}) GROUP BY series`),
        },
        connection.where,
      );
    },
    close: () => connection.close(),
  };
}
