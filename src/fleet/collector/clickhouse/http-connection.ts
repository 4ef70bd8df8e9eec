import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { ClickHouseStoreError, classifyClickHouseError, type ClickHouseConnection } from './clickhouse-connection.js';

export interface HttpConnectionOptions {
  /** http(s)://[user[:password]@]host[:port][/database]; the database must exist. */
  url: string;
  requestTimeoutMs?: number;
  /** An engine connection in place of HTTP (`@clickhouse/client`'s `connection` option; tests pass chdb's). */
  connection?: ClickHouseClientConfigOptions['connection'];
  /** How long an exclusive insert waits for another collector's before giving up (it is retried later). */
  busyWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** The URL as it may be shown: the password replaced. */
export function redactedUrl(url: URL): string {
  const shown = new URL(url.href);
  if (shown.password) shown.password = '***';
  return shown.href.replace(/\/$/, '');
}

const BUSY_STEP_MS = 50;

/**
 * A ClickHouse server through the official client. Exclusive work carries one `session_id` per
 * database: ClickHouse runs one query at a time in a session and answers "Session is locked" to a
 * second one, so the guarded insert of one collector never interleaves with another's.
 */
export async function openHttpConnection(options: HttpConnectionOptions): Promise<ClickHouseConnection> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new ClickHouseStoreError('query', `clickhouse:${options.url} is not a URL (like http://user:password@127.0.0.1:8123/memtrace)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ClickHouseStoreError('query', `clickhouse:${options.url} must be an http:// or https:// URL`);
  const database = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, '')) || 'default';
  const where = `ClickHouse at ${redactedUrl(url)}`;
  const base = `${url.protocol}//${url.host}`;
  const client: ClickHouseClient = createClient({
    url: base,
    database,
    username: decodeURIComponent(url.username) || 'default',
    password: decodeURIComponent(url.password),
    request_timeout: options.requestTimeoutMs ?? 30_000,
    application: 'memtrace-collector',
    // Failures reach the caller as errors (one line each); the client's own log would print them again.
    log: { level: ClickHouseLogLevel.OFF },
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    ...(options.connection ? { connection: options.connection } : {}),
  });
  const sessionId = `memtrace-collector-${database}`;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()));
  const busyWaitMs = options.busyWaitMs ?? 30_000;
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw classifyClickHouseError(error, where);
    }
  };
  /** Exclusive work waits out another collector's (jittered steps), then reports busy. */
  const exclusively = async <T>(work: (session: string) => Promise<T>): Promise<T> => {
    let waited = 0;
    for (;;) {
      try {
        return await run(() => work(sessionId));
      } catch (error) {
        if (!(error instanceof ClickHouseStoreError) || error.kind !== 'busy' || waited >= busyWaitMs) throw error;
        const step = BUSY_STEP_MS + Math.floor(Math.random() * BUSY_STEP_MS);
        await sleep(step);
        waited += step;
      }
    }
  };
  const connection: ClickHouseConnection = {
    where,
    command: (sql, opts) =>
      opts?.exclusive
        ? exclusively(async (session) => void (await client.command({ query: sql, session_id: session })))
        : run(async () => void (await client.command({ query: sql }))),
    rows: <T>(sql: string) => run(async () => (await (await client.query({ query: sql, format: 'JSONEachRow' })).json<T>()) as T[]),
    insertRows: (table, ndjson, opts) => {
      const send = async (session: string | undefined) => {
        const result = await client.exec({
          query: `INSERT INTO ${table} FORMAT JSONEachRow`,
          values: Readable.from([Buffer.from(ndjson)]),
          ...(session ? { session_id: session } : {}),
        });
        result.stream.resume();
        await new Promise<void>((resolve, reject) => {
          result.stream.on('end', resolve);
          result.stream.on('close', resolve);
          result.stream.on('error', reject);
        });
      };
      return opts?.exclusive ? exclusively(send) : run(() => send(undefined));
    },
    close: () => client.close(),
  };
  return connection;
}
