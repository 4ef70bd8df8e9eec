export { createMiner } from './miner.js';
export { createStoreMiningStore } from './mining-store.js';
export type { FileReader, TranscriptTarget } from './mine-file.js';
export { discoverTranscripts } from './discover.js';
export { segmentKey, legacyKey, parseMinedKey } from './segment-keys.js';
export { defaultProjectsDir, transcriptPathFor, sessionIdOfListedFile, sessionIdOfNamedFile } from './transcript-path.js';
export { miningRollupIncrements, passHasActivity, type PassReport } from './mining-report.js';
export { startTranscriptWatcher, DEFAULT_WATCH_CONFIG, type TranscriptWatchConfig, type TranscriptWatcher } from './watcher.js';
export { discoverHostTranscripts } from './hosts/discover-hosts.js';
export {
  defaultHostTranscriptRoot,
  defaultHostTranscriptRoots,
  hostOfTranscriptPath,
  codexSessionIdOfPath,
  copilotSessionIdOfPath,
  piSessionIdOfPath,
} from './hosts/host-transcripts.js';
