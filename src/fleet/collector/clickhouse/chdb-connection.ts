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
export const CHDB_INSTALL_HINT = `the chdb store needs the chdb package (about 550 MB, not installed with memtrace): run 'npm install chdb@${CHDB_VERSION}' where memtrace is installed, or use --store clickhouse:URL`;

async function loadChdb(): Promise<ChdbModule> {
  try {
    const loaded = (await import('chdb')) as unknown as ChdbModule & { default?: ChdbModule };
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
export async function openChdbConnection(dir: string): Promise<ClickHouseConnection> {
  const chdb = await loadChdb();
  const where = `the chdb store at ${dir}`;
  let session: ChdbSession;
  try {
    session = new chdb.Session(dir, { connectionArgs: ['--output_format_json_quote_64bit_integers=0'] });
  } catch (error) {
    const text = `${(error as Error).message} ${String((error as { cause?: Error }).cause?.message ?? '')}`;
    if (/Cannot lock file|already running|refus/i.test(text) || (error as { code?: string }).code === 'CHDB_CONNECTION')
      throw new ClickHouseStoreError(
        'store_in_use',
        `${where} is open in another process (chdb allows one process per directory; several collectors need a ClickHouse server)`,
      );
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
    },
  };
}
