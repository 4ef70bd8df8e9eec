import type { TranscriptFileState } from '../store/index.js';
import { createBackoffMap, type BackoffMap } from './backoff.js';
import { DEFAULT_MINE_FILE_CONFIG, mineFile, type FileReader, type MineFileConfig, type TranscriptTarget } from './mine-file.js';
import { addFileReport, emptyPassReport, type FileReport, type PassReport } from './mining-report.js';
import type { MiningStore } from './mining-store.js';

export interface MinerDeps {
  store: MiningStore;
  now(): number;
  /** The observer loop's wake (a no-op in `memtrace mine`: the worker observes later). */
  wake(sessionId: string): void;
  /** Injectable for tests; in memory, reset on restart (docs/mining.md says why). */
  backoff?: BackoffMap;
  openFile?(path: string): Promise<FileReader>;
  /** Lets other work run between files (the watcher yields to the event loop). */
  yieldBetweenFiles?(): Promise<void>;
}

export interface PassOptions {
  idleMs?: number;
  signal?: AbortSignal;
  onFile?(report: FileReport): void;
  onBytes?(bytes: number): void;
}

/** Mines transcript files with one scan cache and one backoff map for the miner's life. */
export function createMiner(config: Partial<MineFileConfig>, deps: MinerDeps) {
  const fileConfig = { ...DEFAULT_MINE_FILE_CONFIG, ...config };
  const backoff = deps.backoff ?? createBackoffMap();
  let cache: Map<string, TranscriptFileState> | null = null;
  const cacheOf = () => (cache ??= deps.store.loadFiles());

  const mineOne = (target: TranscriptTarget, options: PassOptions = {}) =>
    mineFile(
      fileConfig,
      { store: deps.store, cache: cacheOf, backoff, now: deps.now, wake: deps.wake, ...(deps.openFile ? { openFile: deps.openFile } : {}) },
      target,
      {
        ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onBytes ? { onBytes: options.onBytes } : {}),
      },
    );

  return {
    mineFile: mineOne,
    async pass(targets: readonly TranscriptTarget[], options: PassOptions = {}): Promise<PassReport> {
      const report = emptyPassReport();
      for (const target of targets) {
        if (options.signal?.aborted) break;
        const file = await mineOne(target, options);
        addFileReport(report, file);
        options.onFile?.(file);
        if (file.outcome !== 'unchanged' && deps.yieldBetweenFiles) await deps.yieldBetweenFiles();
      }
      return report;
    },
    backoff,
  };
}
