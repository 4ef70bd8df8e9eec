import fs from 'node:fs';
import os from 'node:os';
import { loadWorkerConfig, type WorkerConfig } from '../config.js';
import { preparePrivateDataDir } from '../data-dir/index.js';
import { createAccessRecorder } from '../memory/access-recorder.js';
import type { MemoryAccessSink } from '../memory/access-counters.js';
import { openStore, type Store } from '../store/index.js';
import { UsageError, type CliIO } from './command.js';

/** What the memory commands (search, export, import, forget, mcp, viewer) work on. */
export interface MemoryStore {
  store: Store;
  config: WorkerConfig;
  access: MemoryAccessSink;
  close(): void;
}

/** The configured data dir's config, or a UsageError naming the bad variable. */
export function memoryConfig(io: CliIO): WorkerConfig {
  const loaded = loadWorkerConfig(io.env, io.env.HOME || os.homedir());
  if (!loaded.ok) throw new UsageError(loaded.errors.join('; '));
  return loaded.config;
}

/**
 * Opens the store beside a running worker (WAL lets both read and write; claimed messages stay
 * the worker's). With `create: false` a data dir holding no database yet gives null, so reading
 * commands answer "nothing stored" instead of creating files.
 */
export function openMemoryStore(io: CliIO, options: { create: boolean }): MemoryStore | null {
  const config = memoryConfig(io);
  if (!options.create && !fs.existsSync(config.dbFile)) return null;
  preparePrivateDataDir(config.dataDir);
  const store = openStore(config.dbFile);
  const access = createAccessRecorder({ dataDir: config.dataDir, env: io.env }, { db: store.db });
  return { store, config, access, close: () => store.close() };
}
