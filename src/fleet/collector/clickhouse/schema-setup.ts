import type { Logger } from '../../../log.js';
import { ClickHouseStoreError, type ClickHouseConnection } from './clickhouse-connection.js';
import type { CollectorSchema } from './clickhouse-schema.js';

export interface SchemaSetupDeps {
  handoffMs: number;
  log: Logger;
  sleep: (ms: number) => Promise<void>;
  onProgress?: ((line: string) => void) | undefined;
}

const TABLE_ALREADY_EXISTS = 57;
/** A schema lock older than this was left by a collector that died while changing the schema. */
const STALE_LOCK_S = 600;
const LOCK_POLL_MS = 500;

/**
 * Creates the collector's tables and counts into each tile's aggregate the events stored before
 * it existed. Schema changes take a lock (a table whose CREATE fails while it exists, which
 * ClickHouse makes atomic), so of several collectors starting at once one builds and the others
 * wait; events inserted meanwhile by running collectors are counted once, by the new view or by
 * the backfill (the hand-off below).
 */
export async function ensureCollectorSchema(connection: ClickHouseConnection, schema: CollectorSchema, deps: SchemaSetupDeps): Promise<void> {
  for (const sql of schema.base) await connection.command(sql);
  const ready = await readyNames(connection, schema);
  if (schema.aggregates.every((a) => ready.has(a.key))) return;
  await withSchemaLock(connection, schema, deps, async () => {
    const stillMissing = schema.aggregates.filter((a) => !ready.has(a.key));
    const nowReady = await readyNames(connection, schema);
    const missing = stillMissing.filter((a) => !nowReady.has(a.key));
    if (missing.length > 0) await buildAggregates(connection, schema, missing, deps);
    await dropOldAggregates(connection, schema);
  });
}

async function readyNames(connection: ClickHouseConnection, schema: CollectorSchema): Promise<Set<string>> {
  return new Set((await connection.rows<{ name: string }>(`SELECT name FROM ${schema.ready}`)).map((r) => r.name));
}

async function serverTime(connection: ClickHouseConnection, plusMs: number): Promise<string> {
  const [row] = await connection.rows<{ t: string }>(`SELECT toString(now64(6, 'UTC') + toIntervalMillisecond(${Math.trunc(plusMs)})) AS t`);
  return row!.t;
}

async function serverPassed(connection: ClickHouseConnection, t: string): Promise<boolean> {
  const [row] = await connection.rows<{ passed: number }>(`SELECT now64(6, 'UTC') > toDateTime64('${t}', 6, 'UTC') AS passed`);
  return Number(row!.passed) === 1;
}

/**
 * The hand-off: each new view counts rows inserted after T, a moment a little ahead of the
 * server's clock; the backfill counts rows inserted up to T, once the clock has passed it. Views
 * and backfills run exclusively (no guarded insert runs meanwhile), so no row is in flight
 * across either and every row is counted by exactly one of the two.
 */
async function buildAggregates(
  connection: ClickHouseConnection,
  schema: CollectorSchema,
  missing: CollectorSchema['aggregates'],
  deps: SchemaSetupDeps,
): Promise<void> {
  const events = Number((await connection.rows<{ n: number }>(`SELECT count() AS n FROM ${schema.events}`))[0]?.n ?? 0);
  // A new, empty store is built silently; counting stored events into new tiles says what it does.
  const progress = events > 0 ? deps.onProgress : undefined;
  progress?.(`building ${missing.length} tile aggregate(s) in ClickHouse over ${events} stored event(s)`);
  let margin = deps.handoffMs;
  for (let attempt = 0; ; attempt += 1) {
    const counted = await tileKeys(connection, schema);
    for (const a of missing) {
      await connection.command(`DROP VIEW IF EXISTS ${a.view}`);
      // What an interrupted build (or the attempt before this one) counted starts again from nothing.
      if (counted.has(a.key)) await connection.command(a.clear);
    }
    const t = await serverTime(connection, margin);
    for (const a of missing) await connection.command(a.createView(t), { exclusive: true });
    if (margin === 0 || !(await serverPassed(connection, t))) {
      while (!(await serverPassed(connection, t))) await deps.sleep(Math.max(10, margin / 4));
      for (const [i, a] of missing.entries()) {
        await connection.command(a.backfill(t), { exclusive: true });
        progress?.(`counted stored events into ${a.tileId} (${i + 1}/${missing.length})`);
      }
      await connection.insertRows(schema.ready, missing.map((a) => JSON.stringify({ name: a.key })).join('\n'));
      return;
    }
    // The views took longer to create than the margin: start over with a wider one.
    if (attempt >= 4) throw new ClickHouseStoreError('query', `${connection.where}: creating the tile views took longer than ${margin} ms five times`);
    margin *= 4;
  }
}

async function tileKeys(connection: ClickHouseConnection, schema: CollectorSchema): Promise<Set<string>> {
  return new Set((await connection.rows<{ tile: string }>(`SELECT DISTINCT tile FROM ${schema.tiles}`)).map((r) => r.tile));
}

/** Tile views and states, tables and inboxes of definitions this version no longer has (a tile changed or went away). */
async function dropOldAggregates(connection: ClickHouseConnection, schema: CollectorSchema): Promise<void> {
  const keys = new Set(schema.aggregates.map((a) => a.key));
  const oldKeys = [...(await tileKeys(connection, schema))].filter((k) => !keys.has(k));
  if (oldKeys.length > 0)
    await connection.command(`ALTER TABLE ${schema.tiles} DELETE WHERE tile IN (${oldKeys.map((k) => `'${k}'`).join(', ')}) SETTINGS mutations_sync = 2`);
  const base = schema.base.map((sql) => /EXISTS (\S+)/.exec(sql)?.[1] ?? '');
  const current = new Set([...schema.aggregates.map((a) => a.view), ...base].map(bare));
  const prefixes = schema.versionedPrefixes.map((p) => `startsWith(name, '${p}')`).join(' OR ');
  const existing = await connection.rows<{ name: string; engine: string }>(
    `SELECT name, engine FROM system.tables WHERE database = '${schema.database}' AND (${prefixes})`,
  );
  const old = existing.filter((t) => !current.has(t.name));
  for (const t of old.filter((t) => t.engine === 'MaterializedView')) await connection.command(`DROP VIEW IF EXISTS ${schema.database}.${t.name}`);
  for (const t of old.filter((t) => t.engine !== 'MaterializedView')) await connection.command(`DROP TABLE IF EXISTS ${schema.database}.${t.name}`);
}

const bare = (qualified: string) => qualified.slice(qualified.indexOf('.') + 1);

async function withSchemaLock(connection: ClickHouseConnection, schema: CollectorSchema, deps: SchemaSetupDeps, work: () => Promise<void>): Promise<void> {
  let told = false;
  for (;;) {
    try {
      await connection.command(`CREATE TABLE ${schema.lock} (holder String) ENGINE = Memory`);
      break;
    } catch (error) {
      if (!(error instanceof ClickHouseStoreError) || error.code !== TABLE_ALREADY_EXISTS) throw error;
    }
    const [row] = await connection.rows<{ age: number }>(
      `SELECT dateDiff('second', metadata_modification_time, now()) AS age FROM system.tables WHERE database = '${schema.database}' AND name = '${bare(schema.lock)}'`,
    );
    if (row && Number(row.age) > STALE_LOCK_S) {
      deps.log.warn('collector removed a stale ClickHouse schema lock', { age_s: Number(row.age) });
      await connection.command(`DROP TABLE IF EXISTS ${schema.lock}`);
      continue;
    }
    if (!told) deps.onProgress?.('waiting for another collector to finish updating the ClickHouse tables');
    told = true;
    await deps.sleep(LOCK_POLL_MS);
  }
  try {
    await work();
  } finally {
    await connection.command(`DROP TABLE IF EXISTS ${schema.lock}`);
  }
}
