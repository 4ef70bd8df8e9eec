import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { ConnectionTarget } from './connection-url.js';
import { pgpassLookup } from './pgpass.js';

/**
 * One connection to a shared database (node-postgres), opened the way libpq would: the URL's
 * password, else PGPASSWORD, else the password file (`PGPASSFILE` or `~/.pgpass`, ignored when
 * others can read it); sslmode with libpq's meaning (`prefer`, the default, tries TLS without
 * verifying and falls back to plain when the server has none). Every step has a limit: the
 * connection (handshake included), each statement on the server, each reply on the client (a
 * server that accepts and never answers), and an idle transaction. Only this folder sees pg.
 */
export interface ShareTimeouts {
  connectMs: number;
  /** Server-side statement_timeout. */
  statementMs: number;
  /** Client-side: a reply that never comes. */
  queryMs: number;
}

const DEFAULT_TIMEOUTS: ShareTimeouts = { connectMs: 5_000, statementMs: 30_000, queryMs: 40_000 };

export interface ConnectOptions {
  env: Record<string, string | undefined>;
  homeDir: string;
  timeouts?: ShareTimeouts;
}

export type PasswordSource = 'url' | 'PGPASSWORD' | 'pgpass' | 'none';

export interface ShareConnection {
  client: pg.Client;
  passwordSource: PasswordSource;
  /** Ends the connection; never throws, never waits long on a silent server. */
  close(): Promise<void>;
}

/** The password file's entry for this target, when the file is private to its owner. */
function fromPasswordFile(target: ConnectionTarget, options: ConnectOptions): string | null {
  const file = options.env.PGPASSFILE || path.join(options.env.HOME || options.homeDir, '.pgpass');
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || (stat.mode & 0o077) !== 0) return null; // libpq ignores a file others can read
    return pgpassLookup(fs.readFileSync(file, 'utf8'), target);
  } catch {
    return null;
  }
}

function tlsFor(target: ConnectionTarget, mode: 'verify' | 'no-verify' | 'verify-ca'): pg.ClientConfig['ssl'] {
  const read = (file: string | null) => (file ? fs.readFileSync(file, 'utf8') : undefined);
  const files = { ca: read(target.sslrootcert), cert: read(target.sslcert), key: read(target.sslkey) };
  const defined = Object.fromEntries(Object.entries(files).filter(([, v]) => v !== undefined));
  if (mode === 'no-verify') return { ...defined, rejectUnauthorized: false };
  if (mode === 'verify-ca') return { ...defined, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  return { ...defined, rejectUnauthorized: true };
}

async function open(target: ConnectionTarget, password: string | null, ssl: pg.ClientConfig['ssl'], timeouts: ShareTimeouts): Promise<pg.Client> {
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
    // A function: node-postgres then never falls back to its own (deprecated) password-file lookup.
    password: (async () => password ?? undefined) as () => Promise<string>,
    ssl,
    application_name: target.applicationName ?? 'memtrace',
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
    idle_in_transaction_session_timeout: timeouts.statementMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // A connection lost while idle is reported here; the next use fails and reconnects.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return client;
}

const noTls = (error: unknown) => /does not support SSL/i.test(String((error as Error)?.message ?? error));

export async function connectShare(target: ConnectionTarget, options: ConnectOptions): Promise<ShareConnection> {
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
  let passwordSource: PasswordSource = 'none';
  let password = target.password;
  if (password !== null) passwordSource = 'url';
  else if (options.env.PGPASSWORD !== undefined) {
    password = options.env.PGPASSWORD;
    passwordSource = 'PGPASSWORD';
  } else {
    password = fromPasswordFile(target, options);
    if (password !== null) passwordSource = 'pgpass';
  }
  const socket = target.host.startsWith('/');
  let client: pg.Client;
  switch (socket ? 'disable' : target.sslmode) {
    case 'disable':
    case 'allow':
      client = await open(target, password, false, timeouts);
      break;
    case 'prefer':
      try {
        client = await open(target, password, tlsFor(target, 'no-verify'), timeouts);
      } catch (error) {
        if (!noTls(error)) throw error;
        client = await open(target, password, false, timeouts);
      }
      break;
    case 'require':
      client = await open(target, password, tlsFor(target, target.sslrootcert ? 'verify-ca' : 'no-verify'), timeouts);
      break;
    case 'verify-ca':
      client = await open(target, password, tlsFor(target, 'verify-ca'), timeouts);
      break;
    default:
      client = await open(target, password, tlsFor(target, 'verify'), timeouts);
  }
  let closed: Promise<void> | null = null;
  return {
    client,
    passwordSource,
    close() {
      closed ??= (async () => {
        // A silent server would keep end() waiting for its reply: give it a moment, then drop the socket.
        const ended = client.end().catch(() => {});
        const timer = new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref());
        await Promise.race([ended, timer]);
        (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      })();
      return closed;
    },
  };
}
