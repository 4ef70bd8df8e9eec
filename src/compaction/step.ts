import { estimateTokens } from '../context/token-estimate.js';
import type { CompactionStore } from './compaction-store.js';
import type { CompactionConfig } from './config.js';
import { skipReasonOf, summarizeWithEscalation, type SkipReason } from './escalation.js';
import { planCompaction } from './plan.js';
import { COMPACTION_PROMPT_VERSION, type CompactionLevel } from './prompts.js';
import { afterFailure, afterIdle, afterSuccess, isDue } from './retry-policy.js';
import { condensedSourceText, leafSourceText } from './source-text.js';
import type { Summarize } from './summarizer.js';

export type StepResult =
  | { kind: 'idle'; reason: 'not_due' | 'disabled' | 'within_budget' | 'nothing_to_compact' }
  | { kind: 'created'; summaryKind: 'leaf' | 'condensed'; level: CompactionLevel; id: number }
  | { kind: 'skipped'; reason: SkipReason; nextAttemptAt: number | null };

export interface StepDeps {
  store: CompactionStore;
  summarize: Summarize;
  providerName: string;
}

/**
 * One compaction step for one project: plan from the store, summarize (the only slow part, an
 * async HTTP call), then write in one short transaction — or write nothing and schedule a retry.
 */
export async function compactionStep(
  config: CompactionConfig,
  deps: StepDeps,
  project: string | null,
  at: { nowMs: number; signal?: AbortSignal },
): Promise<StepResult> {
  const { store } = deps;
  const state = store.loadState(project);
  const latest = store.latestObservationId(project);
  if (!isDue(state, { nowMs: at.nowMs, latestObservationId: latest })) return { kind: 'idle', reason: 'not_due' };

  const snapshot = store.snapshot(project, config);
  const plan = planCompaction(snapshot, config);
  if (plan.action === 'none' || plan.action === 'nothing_to_compact') {
    store.saveState(project, afterIdle(latest), at.nowMs);
    return { kind: 'idle', reason: plan.action === 'none' ? plan.reason : 'nothing_to_compact' };
  }

  const summaryKind = plan.action === 'leaf' ? 'leaf' : 'condensed';
  const sourceText = plan.action === 'leaf' ? leafSourceText(store.observations(plan.observationIds)) : condensedSourceText(store.summaries(plan.sourceIds));
  const sourceTokens = estimateTokens(sourceText);
  const result = await summarizeWithEscalation(deps.summarize, { kind: summaryKind, sourceText, sourceTokens, ...(at.signal ? { signal: at.signal } : {}) });

  if (result.kind === 'failed') {
    const reason = skipReasonOf(result.outcome);
    const next = afterFailure(
      state,
      reason,
      { nowMs: at.nowMs, retryAfterMs: result.outcome.kind === 'provider_error' ? result.outcome.retryAfterMs : null, latestObservationId: latest },
      config.retry,
    );
    if (next !== state) store.saveState(project, next, at.nowMs);
    return { kind: 'skipped', reason, nextAttemptAt: next === state ? null : next.nextAttemptAt };
  }

  const summary = {
    level: result.level,
    content: result.text,
    tokens: result.tokens,
    sourceTokens,
    provider: deps.providerName,
    model: result.model,
    promptVersion: COMPACTION_PROMPT_VERSION,
    nowMs: at.nowMs,
  };
  const id =
    plan.action === 'leaf'
      ? store.writeLeaf(project, plan.observationIds, snapshot.leafReach, summary)
      : store.writeCondensed(project, plan.depth, plan.sourceIds, summary);
  if (id === null) return { kind: 'skipped', reason: 'stale', nextAttemptAt: null };
  store.saveState(project, afterSuccess(), at.nowMs);
  return { kind: 'created', summaryKind, level: result.level, id };
}
