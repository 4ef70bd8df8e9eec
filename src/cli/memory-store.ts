import os from 'node:os';
import { loadWorkerConfig, type WorkerConfig } from '../config.js';
import { openMemoryStore as openStoreOf, type MemoryStore } from '../memory/memory-store.js';
import { UsageError, type CliIO } from './command.js';

/** The configured data dir's config, or a UsageError naming the bad variable. */
function memoryConfig(io: CliIO): WorkerConfig {
  const loaded = loadWorkerConfig(io.env, io.env.HOME || os.homedir());
  if (!loaded.ok) throw new UsageError(loaded.errors.join('; '));
  return loaded.config;
}

/** The memory commands' store (see src/memory/memory-store.ts); a bad variable is a usage error. */
export function openMemoryStore(io: CliIO, options: { create: boolean }): MemoryStore | null {
  return openStoreOf(memoryConfig(io), io.env, options);
}
