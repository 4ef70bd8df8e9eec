export { decideObserverOutput } from './decide.js';
export { previewOutput } from './preview.js';
export { OUTPUT_CLASSES } from './types.js';
export type { ParseDecision } from './types.js';
