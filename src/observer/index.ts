export { decideObserverOutput } from './decide.js';
export { previewOutput } from './preview.js';
export { OUTPUT_CLASSES } from './types.js';
export type { OutputClass, ParseDecision, DecisionCounts } from './types.js';
