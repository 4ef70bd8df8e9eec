import { silentLogger, type Logger } from '../../log.js';
import { openChdbConnection } from './clickhouse/chdb-connection.js';
import { openClickHouseStore } from './clickhouse/clickhouse-store.js';
import { openHttpConnection, redactedUrl } from './clickhouse/http-connection.js';
import { openCollectorStore, sqliteFleetStore, type CollectorStore } from './collector-store.js';
import type { FleetStore } from './fleet-store.js';

/** Where a collector keeps its events (docs/interfaces.md#memtrace-collector): `sqlite:PATH` (the default), `chdb:DIR`, `clickhouse:URL`. */
export type StoreSpec = { kind: 'sqlite'; path: string } | { kind: 'chdb'; dir: string } | { kind: 'clickhouse'; url: string };

export function parseStoreSpec(text: string): { ok: true; spec: StoreSpec } | { ok: false; reason: string } {
  const colon = text.indexOf(':');
  const kind = colon > 0 ? text.slice(0, colon) : '';
  const rest = colon > 0 ? text.slice(colon + 1) : '';
  if (kind === 'sqlite' && rest !== '') return { ok: true, spec: { kind, path: rest } };
  if (kind === 'chdb' && rest !== '') return { ok: true, spec: { kind, dir: rest } };
  if (kind === 'clickhouse' && /^https?:\/\/./.test(rest)) return { ok: true, spec: { kind, url: rest } };
  return { ok: false, reason: `--store ${JSON.stringify(text)} is not sqlite:PATH, chdb:DIR or clickhouse:http(s)://[user:password@]host:port/database` };
}

/** The store as messages name it, without a password. */
export function describeStore(spec: StoreSpec): string {
  if (spec.kind === 'sqlite') return `sqlite:${spec.path}`;
  if (spec.kind === 'chdb') return `chdb:${spec.dir}`;
  try {
    return `clickhouse:${redactedUrl(new URL(spec.url))}`;
  } catch {
    return 'clickhouse:(not a URL)';
  }
}

export interface OpenedStore {
  store: FleetStore;
  /** The SQLite store itself, for what only SQLite offers (the demo reads a raw event back). */
  sqlite: CollectorStore | null;
  /** Whether accepted events should wait in a spool (a server or engine that can be away, or wants large inserts). */
  batched: boolean;
}

/** The database the embedded store keeps its tables in. */
const CHDB_DATABASE = 'memtrace';
/** While other collectors may insert, a new tile starts counting this far ahead of the server's clock (schema-setup.ts). */
const SERVER_HANDOFF_MS = 2_000;

export async function openFleetStore(spec: StoreSpec, options: { log?: Logger; onProgress?: (line: string) => void } = {}): Promise<OpenedStore> {
  const log = options.log ?? silentLogger;
  if (spec.kind === 'sqlite') {
    const sqlite = openCollectorStore(spec.path);
    return { store: sqliteFleetStore(sqlite, `the collector store at ${spec.path}`), sqlite, batched: false };
  }
  if (spec.kind === 'chdb') {
    const connection = await openChdbConnection(spec.dir);
    try {
      await connection.command(`CREATE DATABASE IF NOT EXISTS ${CHDB_DATABASE}`);
      // One process per directory: nobody else inserts, so the hand-off needs no margin.
      const store = await openClickHouseStore(connection, { database: CHDB_DATABASE, handoffMs: 0, log, onProgress: options.onProgress });
      return { store, sqlite: null, batched: true };
    } catch (error) {
      await connection.close();
      throw error;
    }
  }
  const connection = await openHttpConnection({ url: spec.url });
  try {
    const database = decodeURIComponent(new URL(spec.url).pathname.replace(/^\/+|\/+$/g, '')) || 'default';
    const store = await openClickHouseStore(connection, { database, handoffMs: SERVER_HANDOFF_MS, log, onProgress: options.onProgress });
    return { store, sqlite: null, batched: true };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
