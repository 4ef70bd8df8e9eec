export { decideObserverOutput } from './decide.js';
export { previewOutput } from './preview.js';
export { OBSERVATION_TYPES, OUTPUT_CLASSES } from './types.js';
export type { ObservationType, OutputClass, ParseDecision, ParsedObservation, ParsedSummary, DecisionCounts } from './types.js';
