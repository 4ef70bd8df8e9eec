import fs from 'node:fs';
import type { WorkerConfig } from '../config.js';
import { preparePrivateDataDir, runningWorker } from '../data-dir/index.js';
import { openStore, restBesideWorker, sqliteDriver, type Rest, type Store } from '../store/index.js';
import type { MemoryAccessSink } from './access-counters.js';
import { createAccessRecorder } from './access-recorder.js';
import { withMemorySpans } from './access-spans.js';

/** What the memory's readers and writers (search, export, import, forget, mcp, viewer) work on. */
export interface MemoryStore {
  store: Store;
  config: WorkerConfig;
  access: MemoryAccessSink;
  /** What a bulk writer does between its short transactions: rest, when a worker shares the store (src/store/write-pacing.ts). */
  rest: Rest;
  close(): void;
}

/**
 * Opens the store beside a running worker (WAL lets both read and write; claimed messages stay
 * the worker's). With `create: false` a data dir holding no database yet gives null, so reading
 * commands answer "nothing stored" instead of creating files.
 */
export function openMemoryStore(config: WorkerConfig, env: Record<string, string | undefined>, options: { create: boolean }): MemoryStore | null {
  if (!options.create && !fs.existsSync(config.dbFile)) {
    // No store yet — unless none could ever be made: then say so (SqliteDriverError), not "nothing stored".
    sqliteDriver();
    return null;
  }
  preparePrivateDataDir(config.dataDir);
  const store = openStore(config.dbFile);
  const access = withMemorySpans(createAccessRecorder({ dataDir: config.dataDir, env }, { db: store.db }), env);
  const rest = restBesideWorker(runningWorker(config.dataDir) !== null, (ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  return { store, config, access, rest, close: () => store.close() };
}
