import path from 'node:path';
import { silentLogger, type Logger } from '../../log.js';
import { listenLoopback, type ListeningServer } from '../../http-edge/index.js';
import { createCollectorApp } from './collector-app.js';
import type { CollectorStore } from './collector-store.js';
import { openCollectorSpool, SpoolInUseError, type CollectorSpool } from './collector-spool.js';
import type { FleetStore } from './fleet-store.js';
import { openFleetStore, type OpenedStore, type StoreSpec } from './open-store.js';
import { DEFAULT_SPOOLED_INGEST, startSpooledIngest, type SpooledIngest, type SpooledIngestConfig } from './spooled-ingest.js';

export interface CollectorOptions {
  /** Where events are kept (default: `dbFile` as SQLite). */
  store?: StoreSpec;
  /** A store already open, in place of `store` (its owner keeps its engine connection). */
  opened?: OpenedStore;
  /** The SQLite file, when `store` is not given. */
  dbFile?: string;
  /**
   * Where a ClickHouse store's accepted events wait (required for chdb: and clickhouse: stores).
   * When another collector holds it, the next free `<dir>-2`, `<dir>-3`… is taken.
   */
  spoolDir?: string;
  spooledIngest?: Partial<SpooledIngestConfig>;
  /** 0 picks a free port. */
  port: number;
  /** The collector only ever binds the loopback interface. */
  hostname?: '127.0.0.1';
  log?: Logger;
  now?: () => number;
  onProgress?: (line: string) => void;
}

export interface RunningCollector {
  url: string;
  port: number;
  store: FleetStore;
  /** The SQLite store itself (null for ClickHouse stores). */
  sqlite: CollectorStore | null;
  /** Inserts what waits in the spool now (ClickHouse stores); resolves at once for SQLite. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const SPOOL_SLOTS = 16;

/** The local collector on 127.0.0.1 over its store (SQLite by default, or ClickHouse). */
export async function startCollector(options: CollectorOptions): Promise<RunningCollector> {
  const log = options.log ?? silentLogger;
  const spec: StoreSpec = options.store ?? { kind: 'sqlite', path: options.dbFile ?? 'collector.db' };
  const opened = options.opened ?? (await openFleetStore(spec, { log, onProgress: options.onProgress }));
  let port = options.port;
  let spool: CollectorSpool | null = null;
  let spooled: SpooledIngest | null = null;
  let server: ListeningServer;
  try {
    if (opened.sqlite) {
      // A new store or a changed tile counts the events already stored, once, before serving.
      for (const [what, sums] of [
        ['dashboard tiles', opened.sqlite.tiles],
        ['release review sums', opened.sqlite.review],
      ] as const) {
        const caughtUp = sums.refresh();
        if (caughtUp.pending > 0) log.info(`collector counted stored events into the ${what}`, { events: caughtUp.pending, ms: Math.round(caughtUp.ms) });
      }
    }
    if (opened.batched) {
      if (!options.spoolDir) throw new Error('a ClickHouse collector store needs a spool directory');
      spool = openFreeSpool(options.spoolDir);
      spooled = startSpooledIngest(
        { ...DEFAULT_SPOOLED_INGEST, ...options.spooledIngest },
        {
          spool,
          store: opened.store,
          log,
          setTimer: (fn, ms) => {
            const t = setTimeout(fn, ms);
            t.unref();
            return { cancel: () => clearTimeout(t) };
          },
        },
      );
    }
    const ingest = spooled;
    const app = createCollectorApp({
      store: opened.store,
      ingest: ingest
        ? async (events) => ({ accepted: ingest.accept(events), spooled: ingest.pendingEvents() })
        : async (events) => {
            const outcome = await opened.store.insert(events);
            return { stored: outcome.stored, duplicates: outcome.duplicates };
          },
      ...(ingest ? { backlog: () => ({ spooled: ingest.pendingEvents(), failing: ingest.failing() }) } : {}),
      port: () => port,
      now: options.now ?? Date.now,
      log,
    });
    server = await listenLoopback(app, options.port);
  } catch (error) {
    spool?.close();
    await opened.store.close();
    throw error;
  }
  port = server.port;
  log.info('collector listening', { url: server.url, store: opened.store.where, ...(spool ? { spool: spool.dir } : {}) });
  return {
    url: server.url,
    port: server.port,
    store: opened.store,
    sqlite: opened.sqlite,
    flush: async () => spooled?.flush(),
    async close() {
      await server.close();
      await spooled?.close();
      spool?.close();
      await opened.store.close();
    },
  };
}

/** The spool directory, or the first of its numbered siblings no running collector holds. */
function openFreeSpool(dir: string): CollectorSpool {
  for (let slot = 1; slot <= SPOOL_SLOTS; slot += 1) {
    try {
      return openCollectorSpool(slot === 1 ? dir : `${dir}-${slot}`);
    } catch (error) {
      if (!(error instanceof SpoolInUseError)) throw error;
    }
  }
  throw new SpoolInUseError(`${path.dirname(dir)} (${SPOOL_SLOTS} collectors)`);
}
