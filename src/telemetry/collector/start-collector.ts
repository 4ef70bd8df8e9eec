import { listenLoopback } from '../../http-edge/index.js';
import { createCollectorApp } from './collector-app.js';
import { openCollectorStore, type CollectorStore } from './collector-store.js';

export interface RunningCollector {
  url: string;
  port: number;
  store: CollectorStore;
  close(): Promise<void>;
}

/** The local collector on 127.0.0.1 with its own SQLite file. */
export async function startCollector(options: { dbFile: string; port: number; now?: () => number }): Promise<RunningCollector> {
  const store = openCollectorStore(options.dbFile);
  let port = options.port;
  const app = createCollectorApp({ store, port: () => port, now: options.now ?? Date.now });
  let server;
  try {
    server = await listenLoopback(app, options.port);
  } catch (error) {
    store.close();
    throw error;
  }
  port = server.port;
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
