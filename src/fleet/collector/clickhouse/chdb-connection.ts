import path from 'node:path';
import { makePrivateDir } from '../../../data-dir/private-files.js';
import { lockExclusively } from '../../../data-dir/process-lock.js';
import { ClickHouseStoreError, classifyClickHouseError, parseJsonRows, type ClickHouseConnection } from './clickhouse-connection.js';

/** The part of the `chdb` package the store uses (chdb 3.4.0). */
interface ChdbResult {
  text(): string;
}
interface ChdbSession {
  queryAsync(sql: string, options: { format: string }): Promise<ChdbResult>;
  insert(params: { table: string; values: Buffer; format: 'JSONEachRow' }): Promise<unknown>;
  close(): void;
}
interface ChdbModule {
  Session: new (path: string, options?: { connectionArgs?: readonly string[] }) => ChdbSession;
  drainPending(): Promise<void>;
}

/** The pinned version; chdb is a development dependency of memtrace (about 550 MB), so the store loads it only when asked for. */
const CHDB_VERSION = '3.4.0';
const CHDB_INSTALL_HINT = `the chdb store needs the chdb package (about 550 MB, not installed with memtrace): run 'npm install chdb@${CHDB_VERSION}' where memtrace is installed, or use --store clickhouse:URL`;

const LOCK_FILE = 'memtrace.lock';

async function loadChdb(load: () => Promise<unknown> = () => import('chdb')): Promise<ChdbModule> {
  try {
    const loaded = (await load()) as ChdbModule & { default?: ChdbModule };
    return typeof loaded.Session === 'function' ? loaded : loaded.default!;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new ClickHouseStoreError('not_installed', CHDB_INSTALL_HINT);
    throw new ClickHouseStoreError('not_installed', `the chdb package could not be loaded: ${(error as Error).message.split('\n', 1)[0]}`);
  }
}

/**
 * The embedded ClickHouse of the `chdb` package over a data directory. libchdb binds one data
 * directory per process, and a second process on the same directory is refused, so this is
 * one collector's store; operations run one at a time on the process's single connection.
 */
export async function openChdbConnection(dir: string, deps: { load?: () => Promise<unknown> } = {}): Promise<ClickHouseConnection> {
  const chdb = await loadChdb(deps.load);
  const where = `the chdb store at ${dir}`;
  // memtrace's own lock first: the engine, refused a locked directory, would print its own error to stderr.
  makePrivateDir(dir);
  const lock = lockExclusively(path.join(dir, LOCK_FILE));
  if (lock === null)
    throw new ClickHouseStoreError(
      'store_in_use',
      `${where} is open in another process (chdb allows one process per directory; several collectors need a ClickHouse server)`,
    );
  let session: ChdbSession;
  try {
    session = new chdb.Session(dir, { connectionArgs: ['--output_format_json_quote_64bit_integers=0'] });
  } catch (error) {
    lock.release();
    if (/one active data directory per process/.test((error as Error).message))
      throw new ClickHouseStoreError('store_in_use', `${where}: this process has another chdb directory open (chdb holds one per process)`);
    throw classifyClickHouseError(error, where);
  }
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw classifyClickHouseError(error, where);
    }
  };
  // One connection per process: every operation waits for the one before it, so an exclusive one is too.
  return {
    where,
    command: (sql) => serially(() => run(async () => void (await session.queryAsync(sql, { format: 'CSV' })))),
    rows: <T>(sql: string) => serially(() => run(async () => parseJsonRows<T>((await session.queryAsync(sql, { format: 'JSONEachRow' })).text()))),
    insertRows: (table, ndjson) => serially(() => run(async () => void (await session.insert({ table, values: Buffer.from(ndjson), format: 'JSONEachRow' })))),
    async close() {
      await queue;
      session.close();
      await chdb.drainPending();
      lock.release();
    },
  };
}
