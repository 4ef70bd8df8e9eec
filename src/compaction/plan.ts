import type { CompactionConfig } from './config.js';

/** A summary on top of a project's DAG (not yet condensed into another). */
export interface FrontierSummary {
  id: number;
  depth: number;
  tokens: number;
  lastObservationId: number;
}

/** What the planner needs to know about a project; read by compaction-store, decided here. */
export interface ProjectSnapshot {
  /** Oldest first (by the observations they cover). */
  frontier: readonly FrontierSummary[];
  /** Tokens of the raw (not yet compacted) observations counted so far. */
  rawTokens: number;
  /** False when counting stopped early because the project was already over budget. */
  rawTokensComplete: boolean;
  /** The oldest raw observations outside the kept-recent ones, in id order, up to the leaf size. */
  leafRun: ReadonlyArray<{ id: number; tokens: number }>;
}

export type CompactionPlan =
  | { action: 'none'; reason: 'disabled' | 'within_budget' }
  | { action: 'nothing_to_compact' }
  | { action: 'leaf'; observationIds: number[] }
  | { action: 'condense'; depth: number; sourceIds: number[] };

type PlanConfig = Pick<CompactionConfig, 'budgetTokens' | 'fanIn' | 'leafMinInputTokens'>;

/**
 * One step of compaction, decided from values. Frontier summaries, ordered by the observations
 * they cover, never increase in depth (older history is deeper), so the oldest summaries of one
 * depth are always contiguous and condensing them keeps that order.
 */
export function planCompaction(snapshot: ProjectSnapshot, config: PlanConfig): CompactionPlan {
  if (config.budgetTokens <= 0) return { action: 'none', reason: 'disabled' };
  const frontierTokens = snapshot.frontier.reduce((sum, s) => sum + s.tokens, 0);
  if (snapshot.rawTokensComplete && frontierTokens + snapshot.rawTokens <= config.budgetTokens) return { action: 'none', reason: 'within_budget' };

  const byDepth = new Map<number, FrontierSummary[]>();
  for (const s of snapshot.frontier) byDepth.set(s.depth, [...(byDepth.get(s.depth) ?? []), s]);
  const depths = [...byDepth.keys()].sort((a, b) => a - b);

  const full = depths.find((d) => byDepth.get(d)!.length >= config.fanIn);
  if (full !== undefined)
    return {
      action: 'condense',
      depth: full,
      sourceIds: byDepth
        .get(full)!
        .slice(0, config.fanIn)
        .map((s) => s.id),
    };

  const runTokens = snapshot.leafRun.reduce((sum, o) => sum + o.tokens, 0);
  if (snapshot.leafRun.length > 0 && runTokens >= config.leafMinInputTokens) return { action: 'leaf', observationIds: snapshot.leafRun.map((o) => o.id) };

  // No full group and no raw run worth a call: fold a partial group if that can still save room.
  for (const d of depths) {
    const group = byDepth.get(d)!;
    if (group.length >= 2 && group.reduce((sum, s) => sum + s.tokens, 0) >= config.leafMinInputTokens) {
      return { action: 'condense', depth: d, sourceIds: group.map((s) => s.id) };
    }
  }
  return { action: 'nothing_to_compact' };
}
