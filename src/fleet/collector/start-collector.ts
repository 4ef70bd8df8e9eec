import { silentLogger, type Logger } from '../../log.js';
import { listenLoopback, type ListeningServer } from '../../http-edge/index.js';
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
  const app = createCollectorApp({ store, port: () => port, now: options.now ?? Date.now, log });
  let server: ListeningServer;
  try {
    // A new store or a changed tile counts the events already stored, once, before serving.
    for (const [what, sums] of [
      ['dashboard tiles', store.tiles],
      ['release review sums', store.review],
    ] as const) {
      const caughtUp = sums.refresh();
      if (caughtUp.pending > 0) log.info(`collector counted stored events into the ${what}`, { events: caughtUp.pending, ms: Math.round(caughtUp.ms) });
    }
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
      await server.close();
      store.close();
    },
  };
}
