import { estimateTokenUnits, unitsToTokens, UNITS_PER_TOKEN } from './token-estimate.js';
import { selectHistory, type ContextHistorySummary } from './history.js';
import { OBSERVATIONS_HEADING, renderHeader, renderObservation, renderSummary, type ContextObservation, type ContextSummary } from './render.js';

/** Decisions, fixes and security notes save the most rework when remembered. */
const TYPE_WEIGHT: Record<string, number> = {
  decision: 1.0,
  bugfix: 1.0,
  security: 1.0,
  feature: 0.8,
  refactor: 0.7,
  change: 0.7,
  discovery: 0.6,
  other: 0.4,
};
const HALF_LIFE_MS = 3 * 24 * 3_600_000;
const SUMMARY_SHARE = 0.25;
/** Compacted history takes at most this share first; it may grow into what observations leave. */
const HISTORY_SHARE = 0.3;
/**
 * Subagents never crowd out the main agent's memory: the main agent's observations are chosen
 * first, from the whole budget; subagents' fill what is left, and never more than this share of
 * the budget, however many they made.
 */
export const SUBAGENT_SHARE = 0.25;

export interface Selection {
  markdown: string;
  tokens: number;
  injected: ContextObservation[];
  /** Compacted summaries injected. */
  history: ContextHistorySummary[];
}

function usefulness(o: ContextObservation, nowMs: number): number {
  const age = Math.max(0, nowMs - o.createdAt);
  return (TYPE_WEIGHT[o.type] ?? 0.4) * 0.5 ** (age / HALF_LIFE_MS);
}

/**
 * Picks the most useful observations that fit the budget (by the estimator, never over it),
 * the last summary first when it takes at most a quarter of the budget, then the compacted
 * history (older memory as the best-fitting summaries of the DAG, see history.ts). Empty when
 * none of them fits or the project has none.
 */
export function selectContext(input: {
  project: string | null;
  candidates: readonly ContextObservation[];
  summary: ContextSummary | null;
  /** Top summaries of the project's DAG, newest first; raw candidates exclude what they cover. */
  history?: readonly ContextHistorySummary[];
  budgetTokens: number;
  nowMs: number;
}): Selection {
  const parts: string[] = [renderHeader(input.project)];
  let units = estimateTokenUnits(parts[0]!);
  const fits = (text: string, limit = input.budgetTokens) => unitsToTokens(units + estimateTokenUnits(text)) <= limit;
  const add = (text: string) => {
    parts.push(text);
    units += estimateTokenUnits(text);
  };
  if (unitsToTokens(units) > input.budgetTokens) return { markdown: '', tokens: 0, injected: [], history: [] };

  let summarized = false;
  if (input.summary) {
    const block = renderSummary(input.summary);
    summarized = fits(block, unitsToTokens(units) + input.budgetTokens * SUMMARY_SHARE);
    if (summarized) add(block);
  }
  // Budget in units, exactly: the parts' estimates add up to the whole.
  const budgetUnits = input.budgetTokens * UNITS_PER_TOKEN;
  const top = input.history ?? [];
  let history = selectHistory(top, Math.min(budgetUnits - units, Math.floor(budgetUnits * HISTORY_SHARE)));
  const historyAt = parts.length;
  units += history.units;

  const seenTitles = new Set<string>();
  const ranked = [...input.candidates]
    .filter((o) => {
      const key = o.title.trim().toLowerCase();
      if (seenTitles.has(key)) return false;
      seenTitles.add(key);
      return true;
    })
    .sort((a, b) => usefulness(b, input.nowMs) - usefulness(a, input.nowMs) || b.createdAt - a.createdAt || b.id - a.id);

  const injected: ContextObservation[] = [];
  if (ranked.length > 0 && fits(OBSERVATIONS_HEADING)) {
    add(OBSERVATIONS_HEADING);
    for (const observation of ranked) {
      if (observation.subagent) continue;
      const block = renderObservation(observation);
      if (!fits(block)) continue; // a shorter one further down may still fit
      add(block);
      injected.push(observation);
    }
    let subagentUnits = 0;
    const subagentCap = input.budgetTokens * UNITS_PER_TOKEN * SUBAGENT_SHARE;
    for (const observation of ranked) {
      if (!observation.subagent) continue;
      const block = renderObservation(observation);
      const blockUnits = estimateTokenUnits(block);
      if (!fits(block) || subagentUnits + blockUnits > subagentCap) continue;
      add(block);
      subagentUnits += blockUnits;
      injected.push(observation);
    }
  }
  if (top.length > 0) {
    // Room the observations left: let the history use it (more or more detailed summaries).
    const wider = selectHistory(top, history.units + (budgetUnits - units));
    if (wider.units >= history.units) {
      units += wider.units - history.units;
      history = wider;
    }
  }
  // Nothing remembered, nothing said: a heading alone would cost the agent tokens every session and tell it nothing.
  if (!summarized && injected.length === 0 && history.chosen.length === 0) return { markdown: '', tokens: 0, injected: [], history: [] };
  parts.splice(historyAt, 0, ...history.blocks);
  return { markdown: parts.join(''), tokens: unitsToTokens(units), injected, history: history.chosen };
}
