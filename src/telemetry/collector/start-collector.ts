import { silentLogger, type Logger } from '../../log.js';
import { listenLoopback } from '../../server/listen.js';
import { createCollectorApp } from './collector-app.js';
import { openCollectorStore, type CollectorStore } from './collector-store.js';

export interface CollectorOptions {
  dbFile: string;
  /** 0 picks a free port. */
  port: number;
  /** The collector only ever binds the loopback interface. */
  hostname?: '127.0.0.1';
  log?: Logger;
  now?: () => number;
  /** How long after new events the tile sums are brought up to date (the dashboard also does so on read). */
  refreshDelayMs?: number;
}

export interface RunningCollector {
  url: string;
  port: number;
  store: CollectorStore;
  close(): Promise<void>;
}

/** The local collector on 127.0.0.1 with its own SQLite file. */
export async function startCollector(options: CollectorOptions): Promise<RunningCollector> {
  const log = options.log ?? silentLogger;
  const store = openCollectorStore(options.dbFile);
  let port = options.port;
  let timer: NodeJS.Timeout | undefined;
  const refreshSoon = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      try {
        store.tiles.refresh();
      } catch (error) {
        log.warn('collector could not refresh the dashboard tiles', { error: error instanceof Error ? error.message : String(error) });
      }
    }, options.refreshDelayMs ?? 500);
    timer.unref();
  };
  const app = createCollectorApp({ store, port: () => port, now: options.now ?? Date.now, log, onStored: refreshSoon });
  let server;
  try {
    server = await listenLoopback(app, options.port);
  } catch (error) {
    store.close();
    throw error;
  }
  port = server.port;
  log.info('collector listening', { url: server.url, db: options.dbFile });
  return {
    url: server.url,
    port: server.port,
    store,
    async close() {
      clearTimeout(timer);
      timer = undefined;
      await server.close();
      store.close();
    },
  };
}
