/**
 * The simulated fleet's observer turns (simulator.ts): one legacy turn as its `session_compressed`
 * event reports it, and a memtrace session's turns as one `observer_turn_rollup` counts them, both
 * moved by a release's simulated effects. Pure: every draw comes from the `random` passed in.
 */
import { LOOSE_TYPE_MIX, pickWeighted, TYPE_MIX, turnCostUsd, turnTokens, type ModelProfile } from './fleet-model.js';
import type { EffectFactors } from './fleet-effects.js';
import type { Random } from './prng.js';
import { ABORT_REASONS, OBSERVATION_TYPES } from './fleet-measures.js';

const TRANSIENT = ['rate_limit', 'overloaded', 'transport'] as const;
const LEGACY_INVALID_MIX = { prose: 0.45, idle: 0.4, xml: 0.15 } as const;

/** Cost rounded to the micro-dollar, as the legacy events and the rollups report it. */
const usd = (n: number) => Math.round(n * 1e6) / 1e6;

/** A count scaled by `factor` with randomized rounding, so its mean scales exactly; no draw when unscaled. */
function scaleCount(random: Random, n: number, factor: number): number {
  if (factor === 1) return n;
  const x = n * factor;
  return Math.floor(x) + (random() < x - Math.floor(x) ? 1 : 0);
}

/** One observer turn of a legacy release, as its `session_compressed` event reports it. */
export function legacyTurn(random: Random, model: ModelProfile, effect: EffectFactors): Record<string, unknown> {
  const r = random();
  const p = model.poisonedShare * effect.poisoned;
  const invalid = p + 0.06 * effect.dropped;
  if (r < p) return { outcome: 'aborted', abort_reason: 'poisoned', invalid_output_class: 'poisoned' };
  if (r < invalid) return { outcome: 'invalid_output', invalid_output_class: pickWeighted(random, LEGACY_INVALID_MIX) };
  if (r < invalid + 0.03)
    return { outcome: 'aborted', abort_reason: random() < 0.9 ? TRANSIENT[Math.floor(random() * TRANSIENT.length)] : random() < 0.5 ? 'quota' : 'auth' };
  const observations = scaleCount(random, Math.floor(random() * 3.2), effect.observations);
  const tokens = turnTokens(random);
  // About one turn in twenty had no usage reported: its cost is unknown, so it is left out.
  const cost = random() < 0.05 ? {} : { cost_usd: usd(turnCostUsd(model, tokens.input, tokens.output) * effect.cost) };
  return { outcome: 'ok', invalid_output_class: 'xml', observations_created: observations, ...cost };
}

/** A memtrace session's observer turns, as its `observer_turn_rollup` counts them. */
export function observerTurnRollup(random: Random, model: ModelProfile, turns: number, effect: EffectFactors): Record<string, unknown> {
  const c: Record<string, number> = {
    count: turns,
    turns_parsed: 0,
    turns_dropped: 0,
    invalid_class_idle: 0,
    invalid_class_prose: 0,
    invalid_class_malformed_xml: 0,
    outcomes_ok: 0,
    outcomes_error: 0,
    outcomes_aborted: 0,
  };
  for (const reason of ABORT_REASONS) c[`abort_reason_${reason}`] = 0;
  for (const type of OBSERVATION_TYPES) c[`obs_type_${type}`] = 0;
  const bump = (key: string, by = 1) => {
    c[key] = (c[key] ?? 0) + by;
  };
  // The closure-phrase replies the legacy classifier called poisoned are dropped here, with idle and malformed ones.
  const droppedAsProse = (model.poisonedShare + 0.03) * effect.dropped;
  const dropped = (model.poisonedShare + 0.055) * effect.dropped;
  let observations = 0;
  let cost = 0;
  let unknownUsage = 0;
  let tokensIn = 0;
  let tokensOut = 0;
  for (let t = 0; t < turns; t += 1) {
    const r = random();
    if (r < droppedAsProse) {
      // Dropped as prose, and the session goes on.
      bump('turns_dropped');
      bump('invalid_class_prose');
      bump('outcomes_ok');
    } else if (r < dropped) {
      bump('turns_dropped');
      bump(random() < 0.85 ? 'invalid_class_idle' : 'invalid_class_malformed_xml');
      bump('outcomes_ok');
    } else if (r < dropped + 0.025) {
      bump('outcomes_error');
      bump(`abort_reason_${TRANSIENT[Math.floor(random() * TRANSIENT.length)]}`);
      continue;
    } else if (r < dropped + 0.03) {
      bump('outcomes_aborted');
      bump(random() < 0.7 ? 'abort_reason_idle' : 'abort_reason_shutdown');
      continue;
    } else {
      bump('turns_parsed');
      bump('outcomes_ok');
      const n = scaleCount(random, Math.floor(random() * 3.2), effect.observations);
      observations += n;
      for (let k = 0; k < n; k += 1) bump(`obs_type_${pickWeighted(random, model.followsTypes ? TYPE_MIX : LOOSE_TYPE_MIX)}`);
    }
    if (random() < 0.03) unknownUsage += 1;
    else {
      const tokens = turnTokens(random);
      tokensIn += tokens.input;
      tokensOut += tokens.output;
      cost += turnCostUsd(model, tokens.input, tokens.output) * effect.cost;
    }
  }
  const known = turns - c.outcomes_error! - c.outcomes_aborted! - unknownUsage;
  // Absent is not zero: with no turn's usage known, tokens and cost are left out.
  const usage = known > 0 ? { total_tokens_input: tokensIn, total_tokens_output: tokensOut, total_cost_usd: usd(cost) } : {};
  return {
    ...c,
    observations_created: observations,
    summaries_created: random() < 0.9 ? 1 : 0,
    claims_rejected: random() < 0.05 ? 1 : 0,
    ...usage,
    turns_usage_unknown: unknownUsage,
    avg_duration_ms: Math.round(1_800 + 2_400 * random()),
    top_model: model.id,
    provider: model.provider,
  };
}
