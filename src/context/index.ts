export { buildContext, parseBudget, DEFAULT_BUDGET_TOKENS } from './inject.js';
export { createContextQuery } from './query.js';
export { estimateTokens } from './token-estimate.js';
export { selectContext } from './select.js';
export { selectHistory, type ContextHistorySummary } from './history.js';
