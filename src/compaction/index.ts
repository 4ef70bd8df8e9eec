export { startCompaction, type CompactionHandle, type CompactionTimers } from './scheduler.js';
export { loadCompactionConfig, DEFAULT_COMPACTION_CONFIG, type CompactionConfig } from './config.js';
export { createCompactionStore } from './compaction-store.js';
export { planCompaction, type FrontierSummary } from './plan.js';
export { afterFailure, afterIdle, isDue, INITIAL_STATE } from './retry-policy.js';
export { containsMarker, fallbackReasons, stripMarkers } from './markers.js';
export { acceptSummary, cannotSummarize, summaryShapeProblem } from './summary-contract.js';
