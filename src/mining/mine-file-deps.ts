import type { TranscriptFileState } from '../store/index.js';
import type { BackoffMap } from './backoff.js';
import type { FileReader } from './file-reader.js';
import type { MiningStore } from './mining-store.js';

/** What mining one file needs: its limits (config) and its capabilities (deps), for either kind of transcript. */
export interface MineFileConfig {
  chunkBytes: number;
  /** Longer lines are skipped and counted (see docs/mining.md for the cap). */
  maxLineBytes: number;
}

export const DEFAULT_MINE_FILE_CONFIG: MineFileConfig = { chunkBytes: 1024 * 1024, maxLineBytes: 64 * 1024 * 1024 };

export interface MineFileDeps {
  store: MiningStore;
  /** The scan cache (loaded once from the store, written through). */
  cache(): Map<string, TranscriptFileState>;
  backoff: BackoffMap;
  now(): number;
  wake(sessionId: string): void;
  openFile?(path: string): Promise<FileReader>;
}

export interface MineFileOptions {
  /** Only files untouched for this long are read (the watcher: 2 min); the CLI reads every file. */
  idleMs?: number;
  signal?: AbortSignal;
  onBytes?(bytes: number): void;
}
