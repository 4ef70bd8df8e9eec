import { OBSERVATION_TYPES } from '../../vocabulary/observation.js';
import type { TurnRecord } from '../../observer/turn-record.js';
import { ABORT_REASONS } from '../../observer/turn-record.js';
import { normalizeModelId } from '../model-id.js';

/** Counter keys, named exactly as the rollup's properties. */
export const TURN_COUNTERS = [
  'count',
  'turns_parsed',
  'turns_dropped',
  'invalid_class_idle',
  'invalid_class_prose',
  'invalid_class_malformed_xml',
  'outcomes_ok',
  'outcomes_error',
  'outcomes_aborted',
  ...ABORT_REASONS.map((r) => `abort_reason_${r}` as const),
  'tool_events_observed',
  'observations_created',
  ...OBSERVATION_TYPES.map((t) => `obs_type_${t}` as const),
  'summaries_created',
  'claims_rejected',
  'claims_unverifiable',
  'file_claims_removed',
  'turns_usage_unknown',
] as const;
export type TurnCounter = (typeof TURN_COUNTERS)[number];

const MAX_MODELS = 8;

/** Constant size whatever the number of turns: counters, sums and a capped model tally. */
export interface ObserverTurnAccumulator {
  windowStartMs: number;
  provider: string;
  counters: Record<TurnCounter, number>;
  tokensInput: number;
  tokensOutput: number;
  turnsWithUsage: number;
  costUsd: number;
  turnsWithCost: number;
  durationMsSum: number;
  models: Record<string, number>;
  /** The session's agent host; absent until a turn names it (accumulators written before it existed have none). */
  platform?: string;
}

export function newTurnAccumulator(windowStartMs: number, provider: string): ObserverTurnAccumulator {
  return {
    windowStartMs,
    provider,
    counters: Object.fromEntries(TURN_COUNTERS.map((k) => [k, 0])) as Record<TurnCounter, number>,
    tokensInput: 0,
    tokensOutput: 0,
    turnsWithUsage: 0,
    costUsd: 0,
    turnsWithCost: 0,
    durationMsSum: 0,
    models: {},
  };
}

/** Folds one turn into the accumulator in place (the caller owns it; no allocation per turn). */
export function foldTurn(acc: ObserverTurnAccumulator, turn: TurnRecord): void {
  const c = acc.counters;
  c.count += 1;
  if (turn.parse === 'parsed') c.turns_parsed += 1;
  else if (turn.parse === 'dropped') {
    c.turns_dropped += 1;
    if (turn.outputClass === 'idle') c.invalid_class_idle += 1;
    else if (turn.outputClass === 'prose') c.invalid_class_prose += 1;
    else if (turn.outputClass === 'malformed_xml') c.invalid_class_malformed_xml += 1;
  }
  if (turn.outcome === 'ok') c.outcomes_ok += 1;
  else if (turn.outcome === 'error') c.outcomes_error += 1;
  else c.outcomes_aborted += 1;
  if (turn.abortReason !== null) c[`abort_reason_${turn.abortReason}`] += 1;
  // Only turns that reached the provider observed their events (a failed call is retried and counted again).
  if (turn.outcome === 'ok') c.tool_events_observed += turn.events;
  c.observations_created += turn.observationsCreated;
  for (const type of OBSERVATION_TYPES) {
    const n = turn.observationsByType[type];
    if (n) c[`obs_type_${type}`] += n;
  }
  if (turn.summaryCreated) c.summaries_created += 1;
  c.claims_rejected += turn.claimsRejected;
  c.claims_unverifiable += turn.claimsUnverifiable;
  c.file_claims_removed += turn.fileClaimsRemoved;
  // Only turns that reached the provider say anything about usage.
  if (turn.outcome === 'ok') {
    if (turn.tokens) {
      acc.tokensInput += turn.tokens.input;
      acc.tokensOutput += turn.tokens.output;
      acc.turnsWithUsage += 1;
    } else c.turns_usage_unknown += 1;
  }
  if (turn.costUsd !== null) {
    acc.costUsd += turn.costUsd;
    acc.turnsWithCost += 1;
  }
  acc.durationMsSum += turn.durationMs;
  if (turn.platform) acc.platform = turn.platform;
  // A session's turns all go to its host's observer; the latest one names the rollup's provider.
  acc.provider = turn.provider;
  if (turn.model !== null) {
    const model = normalizeModelId(turn.model);
    const key = model in acc.models || Object.keys(acc.models).length < MAX_MODELS ? model : 'other';
    acc.models[key] = (acc.models[key] ?? 0) + 1;
  }
}

export function mergeTurnAccumulators(a: ObserverTurnAccumulator, b: ObserverTurnAccumulator): ObserverTurnAccumulator {
  const merged = newTurnAccumulator(Math.min(a.windowStartMs, b.windowStartMs), a.provider);
  for (const k of TURN_COUNTERS) merged.counters[k] = a.counters[k] + b.counters[k];
  merged.tokensInput = a.tokensInput + b.tokensInput;
  merged.tokensOutput = a.tokensOutput + b.tokensOutput;
  merged.turnsWithUsage = a.turnsWithUsage + b.turnsWithUsage;
  merged.costUsd = a.costUsd + b.costUsd;
  merged.turnsWithCost = a.turnsWithCost + b.turnsWithCost;
  merged.durationMsSum = a.durationMsSum + b.durationMsSum;
  const platform = b.platform ?? a.platform;
  if (platform !== undefined) merged.platform = platform;
  for (const [model, n] of [...Object.entries(a.models), ...Object.entries(b.models)]) {
    const key = model in merged.models || Object.keys(merged.models).length < MAX_MODELS ? model : 'other';
    merged.models[key] = (merged.models[key] ?? 0) + n;
  }
  return merged;
}

function topModel(acc: ObserverTurnAccumulator): string | undefined {
  let best: string | undefined;
  let bestCount = 0;
  for (const [model, n] of Object.entries(acc.models)) {
    if (n > bestCount || (n === bestCount && best !== undefined && model < best)) {
      best = model;
      bestCount = n;
    }
  }
  return best;
}

/** The rollup's properties. Unknown totals are omitted, never reported as 0. */
export function finalizeTurnRollup(
  acc: ObserverTurnAccumulator,
  meta: { reason: 'session_end' | 'worker_shutdown' | 'safety_flush' | 'crash_recovery'; windowSeq: number },
): Record<string, unknown> {
  const props: Record<string, unknown> = { ...acc.counters };
  if (acc.turnsWithUsage > 0) {
    props.total_tokens_input = acc.tokensInput;
    props.total_tokens_output = acc.tokensOutput;
  }
  if (acc.turnsWithCost > 0) props.total_cost_usd = Math.round(acc.costUsd * 1e6) / 1e6;
  if (acc.counters.count > 0) props.avg_duration_ms = Math.round((acc.durationMsSum / acc.counters.count) * 10) / 10;
  const model = topModel(acc);
  if (model !== undefined) props.top_model = model;
  props.provider = acc.provider;
  if (acc.platform !== undefined) props.platform = acc.platform;
  props.rollup_reason = meta.reason;
  props.window_seq = meta.windowSeq;
  props.window_start_ts = acc.windowStartMs;
  return props;
}

const SAFETY_CAPS = { maxAgeMs: 3_600_000, maxTurns: 1000 } as const;

export function turnRollupDue(acc: ObserverTurnAccumulator, nowMs: number, caps: { maxAgeMs: number; maxTurns: number } = SAFETY_CAPS): boolean {
  return acc.counters.count >= caps.maxTurns || (acc.counters.count > 0 && nowMs - acc.windowStartMs >= caps.maxAgeMs);
}
