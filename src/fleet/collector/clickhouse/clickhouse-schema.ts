import {
  clickHouseTileAggregate,
  propertiesByEvent,
  propertyColumn,
  shortHash,
  tileTableColumns,
  tileTableDefinition,
  type ClickHouseTileAggregate,
} from '../../dashboards/clickhouse-aggregates.js';
import { propertyText } from '../../dashboards/posthog-property.js';
import type { Tile } from '../../dashboards/tile-ir.js';
import { tileResultsDefinition } from './tile-results.js';

/** The collector's events are one PostHog project; the tiles read them through PostHog's team guard. */
export const COLLECTOR_TEAM_ID = 1;

/**
 * The collector's tables in one ClickHouse database:
 * - `events`: PostHog's events shape (plus `_inserted_at`, the server time of the insert);
 * - `event_uuids`: every stored uuid, a key-value table (EmbeddedRocksDB) read by key;
 * - `inbox_<h>` (Null): where the collector inserts, PostHog's columns plus each property the
 *   tiles read as PostHog's String. Its view passes on to `accepted_<h>` (Null) only the rows
 *   whose uuid `event_uuids` does not hold yet, in the same statement: with the statement run
 *   exclusively, a uuid is stored once however often and wherever it is re-sent. From
 *   `accepted_<h>`, views fill `events`, `event_uuids` and, one view per tile, the tiles'
 *   states in `tile_states_<h>` (clickhouse-aggregates.ts). `<h>` names the set of property columns, so a version that reads
 *   other properties gets its own inbox;
 * - `memtrace_ready` lists the tiles fully counted (their backfill done), by key;
 * - `tile_results` keeps every tile's rows as last computed from its states (tile-results.ts).
 */
export interface CollectorSchema {
  database: string;
  events: string;
  uuids: string;
  inbox: string;
  accepted: string;
  ready: string;
  /** The tiles' states (one AggregatingMergeTree for every tile). */
  tiles: string;
  /** Every tile's rows as last computed from its states (tile-results.ts). */
  results: string;
  lock: string;
  /** The statements that create everything but the tile aggregates (idempotent). */
  base: string[];
  aggregates: ClickHouseTileAggregate[];
  /** Tile views and tables, inboxes and their views of other definitions start with these (dropped once the new ones are counted). */
  versionedPrefixes: string[];
  /** An event as a row of the inbox. */
  inboxRow(e: { uuid: string; event: string; distinctId: string; timestamp: number }, properties: Record<string, unknown>, propertiesJson: string): string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Text JSON writes as it is between quotes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters JSON escapes are what this finds.
const PLAIN = /^[^"\\\u0000-\u001f]*$/;

export function collectorSchema(database: string, tiles: readonly Tile[]): CollectorSchema {
  if (!IDENTIFIER.test(database)) throw new Error(`the ClickHouse database name ${JSON.stringify(database)} must be letters, digits and _`);
  const q = (name: string) => `${database}.${name}`;
  const events = q('events');
  const uuids = q('event_uuids');
  const byEvent = propertiesByEvent(tiles);
  const keys = [...new Set([...byEvent.values()].flat())].sort();
  const version = shortHash(keys.join('\n'));
  const inbox = q(`inbox_${version}`);
  const tileStates = q(`tile_states_${shortHash(tileTableColumns)}`);
  const accepted = q(`accepted_${version}`);
  const eventColumns = "uuid UUID, event String, properties String, timestamp DateTime64(6, 'UTC'), distinct_id String";
  const keyColumns = keys.map((k) => `, ${propertyColumn(k)} Nullable(String)`).join('');
  const keyNames = keys.map((k) => `, i.${propertyColumn(k)} AS ${propertyColumn(k)}`).join('');
  const base = [
    `CREATE TABLE IF NOT EXISTS ${events} (uuid UUID, event String, properties String, timestamp DateTime64(6, 'UTC'), team_id Int64, distinct_id String, _inserted_at DateTime64(6, 'UTC')) ENGINE = MergeTree ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))`,
    `CREATE TABLE IF NOT EXISTS ${uuids} (uuid UUID, seen UInt8) ENGINE = EmbeddedRocksDB PRIMARY KEY uuid`,
    `CREATE TABLE IF NOT EXISTS ${q('memtrace_ready')} (name String) ENGINE = MergeTree ORDER BY name`,
    tileTableDefinition(tileStates),
    tileResultsDefinition(q('tile_results')),
    `CREATE TABLE IF NOT EXISTS ${inbox} (${eventColumns}${keyColumns}) ENGINE = Null`,
    `CREATE TABLE IF NOT EXISTS ${accepted} (${eventColumns}, team_id Int64, _inserted_at DateTime64(6, 'UTC')${keyColumns}) ENGINE = Null`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${accepted}_events_mv TO ${events} AS SELECT uuid, event, properties, timestamp, team_id, distinct_id, _inserted_at FROM ${accepted}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${accepted}_uuids_mv TO ${uuids} AS SELECT uuid, toUInt8(1) AS seen FROM ${accepted}`,
    // Rows of the statement whose uuid is already stored are dropped here, looked up by key.
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${inbox}_mv TO ${accepted} AS SELECT i.uuid AS uuid, i.event AS event, i.properties AS properties, i.timestamp AS timestamp, i.distinct_id AS distinct_id, toInt64(${COLLECTOR_TEAM_ID}) AS team_id, now64(6, 'UTC') AS _inserted_at${keyNames} FROM ${inbox} AS i LEFT ANY JOIN ${uuids} AS g ON i.uuid = g.uuid WHERE g.seen = 0 SETTINGS join_algorithm = 'direct'`,
  ];
  // Keys are plain identifiers (tile-plan.ts), so their column names need no escaping.
  const columnsByEvent = new Map([...byEvent].map(([event, eventKeys]) => [event, eventKeys.map((key) => ({ key, prefix: `,"p:${key}":` }))]));
  const aggregates = tiles.map((tile) =>
    clickHouseTileAggregate(tile, { events, accepted, table: tileStates, prefix: `${database}.`, teamId: COLLECTOR_TEAM_ID }),
  );
  return {
    database,
    events,
    uuids,
    inbox,
    accepted,
    ready: q('memtrace_ready'),
    tiles: tileStates,
    results: q('tile_results'),
    lock: q('memtrace_schema_lock'),
    base,
    aggregates,
    versionedPrefixes: ['tile_', 'inbox_', 'accepted_'],
    inboxRow(e, properties, propertiesJson) {
      // The JSON object goes in as itself: ClickHouse keeps an object read into a String column as
      // its text. The timestamp goes in as microseconds (DateTime64(6) reads an integer as ticks).
      let row = `{"uuid":"${e.uuid}","event":${JSON.stringify(e.event)},"properties":${propertiesJson},"timestamp":${Math.trunc(e.timestamp) * 1000},"distinct_id":${JSON.stringify(e.distinctId)}`;
      for (const { key, prefix } of columnsByEvent.get(e.event) ?? []) {
        const value = properties[key];
        if (value === undefined || value === null || !Object.hasOwn(properties, key)) continue;
        const text = propertyText(value);
        if (text !== null) row += typeof value === 'number' || PLAIN.test(text) ? `${prefix}"${text}"` : `${prefix}${JSON.stringify(text)}`;
      }
      return `${row}}`;
    },
  };
}

/** Milliseconds as ClickHouse reads a DateTime64 (UTC, `YYYY-MM-DD hh:mm:ss.mmm`). */
export function serverTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}
