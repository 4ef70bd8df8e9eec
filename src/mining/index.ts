export { createMiner, type Miner, type MinerDeps, type PassOptions } from './miner.js';
export { createStoreMiningStore, type MiningStore } from './mining-store.js';
export { mineFile, DEFAULT_MINE_FILE_CONFIG, MiningAttemptError, type FileReader, type MineFileConfig, type TranscriptTarget } from './mine-file.js';
export { discoverTranscripts, type Discovery } from './discover.js';
export { createBackoffMap, failureDelayMs, MINING_BACKOFF, type BackoffMap } from './backoff.js';
export { segmentKey, legacyKey, parseMinedKey, MINED_KEY_PREFIX } from './segment-keys.js';
export { defaultProjectsDir, transcriptPathFor, sessionIdOfListedFile, sessionIdOfNamedFile } from './transcript-path.js';
export { emptyPassReport, miningRollupIncrements, passHasActivity, type FileReport, type PassReport, type FileOutcome } from './mining-report.js';
export { startTranscriptWatcher, DEFAULT_WATCH_CONFIG, type TranscriptWatchConfig, type TranscriptWatcher, type TranscriptWatcherDeps, type WatcherTimers } from './watcher.js';
