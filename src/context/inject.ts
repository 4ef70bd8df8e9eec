import { tokensSavedVsNaive } from './economics.js';
import type { ContextQuery } from './query.js';
import { selectContext } from './select.js';

export interface InjectionResult {
  markdown: string;
  tokensInjected: number;
  observationsInjected: number;
  /** Compacted summaries injected (older history). */
  summariesInjected: number;
  tokensSavedVsNaive: number | null;
}

/** `project` is the key memory is stored under (a repository root); `label` is how it is shown. */
export function buildContext(
  query: ContextQuery,
  request: { project: string | null; label?: string | null; budgetTokens: number; nowMs: number },
): InjectionResult {
  const selection = selectContext({
    project: request.label ?? request.project,
    candidates: query.candidates(request.project),
    summary: query.lastSummary(request.project),
    history: query.history(request.project),
    budgetTokens: request.budgetTokens,
    nowMs: request.nowMs,
  });
  return {
    markdown: selection.markdown,
    tokensInjected: selection.tokens,
    observationsInjected: selection.injected.length,
    summariesInjected: selection.history.length,
    tokensSavedVsNaive: tokensSavedVsNaive(selection.injected, selection.tokens),
  };
}

export const DEFAULT_BUDGET_TOKENS = 2_000;

export function parseBudget(raw: string | undefined): number | { error: string } {
  if (raw === undefined || raw === '') return DEFAULT_BUDGET_TOKENS;
  if (!/^\d{1,7}$/.test(raw)) return { error: 'must be a whole number of tokens' };
  const value = Number(raw);
  if (value < 50 || value > 100_000) return { error: 'must be between 50 and 100000' };
  return value;
}
