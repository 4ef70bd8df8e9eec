import { execFileSync, execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';

/**
 * A real, throw-away Postgres server: Debian's binaries (`/usr/lib/postgresql/<v>/bin`), run as the
 * `postgres` OS user (the server refuses root) on a temporary data directory, listening on a free
 * port on 127.0.0.1 and on a socket in that directory. One per test file (or bench); `stop()`
 * shuts it down and keeps its files so `start()` can bring the same cluster back (a database that
 * was down), `destroy()` removes everything. `.ci/run` installs the `postgresql` package where the
 * binaries are missing.
 */
const POSTGRES_BIN = (() => {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? null : path.join(root, newest, 'bin');
})();

export const SUPERUSER_PASSWORD = 'super-secret-pw';

export interface PostgresServer {
  port: number;
  host: '127.0.0.1';
  /** The socket directory (for a URL's `host=` parameter). */
  socketDir: string;
  /** A URL for a role and database (a password, when given, goes into the URL). */
  url(role: string, options?: { password?: string | null; database?: string; params?: string }): string;
  /** Runs SQL as the superuser on a database (default `postgres`). */
  admin<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[], database?: string): Promise<pg.QueryResult<T>>;
  /** A LOGIN role with a password, and (when `createOn` names one) CREATE on that database. */
  createRole(role: string, password: string, options?: { createOn?: string }): Promise<void>;
  createDatabase(name: string): Promise<void>;
  /** Every row of every table of a database as text (what a leak check scans). */
  dumpDatabase(database: string): Promise<string>;
  /** Shuts the server down, keeping its files. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after `stop`). */
  start(): Promise<void>;
  /** SIGSTOP / SIGCONT the postmaster and its backends: a server that accepts and never answers. */
  pause(): void;
  resume(): void;
  destroy(): Promise<void>;
}

const run = (file: string, args: string[], options: { cwd?: string } = {}) =>
  new Promise<string>((resolve, reject) => {
    execFile('runuser', ['-u', 'postgres', '--', file, ...args], { cwd: options.cwd ?? '/', encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(file)} failed: ${stderr || stdout || error.message}`));
      else resolve(stdout);
    });
  });

export async function startPostgresServer(): Promise<PostgresServer> {
  if (POSTGRES_BIN === null) throw new Error('no Postgres server binaries under /usr/lib/postgresql (apt-get install postgresql)');
  const bin = POSTGRES_BIN;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memtrace-pg-'));
  fs.chownSync(dir, uid, gid);
  const data = path.join(dir, 'data');
  const pwfile = path.join(dir, 'pw');
  fs.writeFileSync(pwfile, `${SUPERUSER_PASSWORD}\n`);
  fs.chownSync(pwfile, uid, gid);
  await run(path.join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    `--pwfile=${pwfile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const port = await freePort();
  // Throw-away: no fsync, small buffers; only loopback and the temp socket dir.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB -c max_connections=60`;
  const log = path.join(dir, 'server.log');
  const start = () => run(path.join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', log, '-w', '-t', '60', 'start']);
  await start();
  const pids = () => {
    try {
      const main = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = execFileSync('pgrep', ['-P', String(main)], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .filter(Boolean)
        .map(Number);
      return [main, ...children];
    } catch {
      return [];
    }
  };
  const admin = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = [], database = 'postgres') => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: SUPERUSER_PASSWORD, database });
    await client.connect();
    try {
      return await client.query<T>(sql, params);
    } finally {
      await client.end();
    }
  };
  const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
  return {
    port,
    host: '127.0.0.1',
    socketDir: dir,
    url: (role, { password = null, database = 'team', params } = {}) =>
      `postgresql://${encodeURIComponent(role)}${password === null ? '' : `:${encodeURIComponent(password)}`}@127.0.0.1:${port}/${database}${params ? `?${params}` : ''}`,
    admin,
    async createRole(role, password, { createOn } = {}) {
      await admin(`CREATE ROLE ${ident(role)} LOGIN PASSWORD '${password.replaceAll("'", "''")}'`);
      if (createOn) await admin(`GRANT CREATE ON DATABASE ${ident(createOn)} TO ${ident(role)}`);
    },
    async createDatabase(name) {
      await admin(`CREATE DATABASE ${ident(name)}`);
    },
    async dumpDatabase(database) {
      const tables = await admin<{ schema: string; name: string }>(
        "SELECT table_schema AS schema, table_name AS name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')",
        [],
        database,
      );
      const parts: string[] = [];
      for (const t of tables.rows) {
        const rows = await admin(`SELECT t::text AS row FROM ${ident(t.schema)}.${ident(t.name)} t`, [], database);
        parts.push(`${t.schema}.${t.name}:`, ...rows.rows.map((r) => String(r.row)));
      }
      return parts.join('\n');
    },
    stop: async () => {
      await run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    start: async () => {
      await start();
    },
    pause: () => {
      for (const pid of pids()) process.kill(pid, 'SIGSTOP');
    },
    resume: () => {
      for (const pid of pids()) process.kill(pid, 'SIGCONT');
    },
    destroy: async () => {
      for (const pid of pids()) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          /* gone */
        }
      }
      try {
        await run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        /* already stopped */
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
