export { buildContext, parseBudget, DEFAULT_BUDGET_TOKENS, type InjectionResult } from './inject.js';
export { createContextQuery, CANDIDATE_WINDOW, HISTORY_WINDOW, type ContextQuery } from './query.js';
export { estimateTokens } from './token-estimate.js';
export { selectContext } from './select.js';
export { selectHistory, renderHistorySummary, HISTORY_HEADING, type ContextHistorySummary } from './history.js';
export { tokensSavedVsNaive } from './economics.js';
