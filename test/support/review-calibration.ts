import { generateFleet, ROLLUP, type FleetOptions, type SimulatedEffect } from '../../src/fleet/dashboards/index.js';

import { compileTileEvaluator } from '../../src/fleet/dashboards/tile-eval.js';
import { planTile } from '../../src/fleet/dashboards/tile-plan.js';
import { computeReview, REVIEW_MEASURES, REVIEW_SUMS_TILE, type InstallSums } from '../../src/fleet/review/index.js';

/** The measures an observer_turn_rollup feeds, apart from those no simulated turn ever has (always 0). */
export const ROLLUP_MEASURES = [
  'turns_dropped_rate',
  'abort_rate_rate_limit',
  'abort_rate_overloaded',
  'abort_rate_transport',
  'abort_rate_idle',
  'abort_rate_shutdown',
  'observations_per_turn',
  'cost_per_observation',
] as const;

const plan = planTile(REVIEW_SUMS_TILE);
const evaluate = compileTileEvaluator(plan);
const leafOf = (name: string) => {
  const agg = plan.measures.find((m) => m.name === name)!.agg;
  return (agg as { sum: number }).sum;
};
const numLeaves = REVIEW_MEASURES.map((m) => leafOf(`${m.id}_num`));
const denLeaves = REVIEW_MEASURES.map((m) => leafOf(`${m.id}_den`));

/**
 * Per-install sums straight from events, by the same per-event evaluator the collector folds at
 * ingest (without SQLite, so many seeds stay cheap).
 */
export function installSumsOf(events: Iterable<Parameters<typeof evaluate>[0]>): InstallSums[] {
  const groups = new Map<string, { install: string; version: string; leaves: number[] }>();
  for (const event of events) {
    const v = evaluate(event);
    if (v === null) continue;
    const key = `${v.xk}\u0000${v.series}`;
    let g = groups.get(key);
    if (!g) {
      g = { install: String(v.xk), version: v.series, leaves: v.values.map(() => 0) };
      groups.set(key, g);
    }
    for (const [i, x] of v.values.entries()) g.leaves[i] = g.leaves[i]! + x;
  }
  return [...groups.values()].map((g) => ({
    install: g.install,
    version: g.version,
    num: numLeaves.map((i) => g.leaves[i]!),
    den: denLeaves.map((i) => g.leaves[i]!),
  }));
}

export interface CalibrationResult {
  seeds: number;
  installs: number;
  /** Seeds in which each measure was called better or worse. */
  flagged: Record<string, number>;
}

/**
 * Reviews `baseline` against `candidate` on one simulated fleet per seed (the default fleet plus
 * the releases and effects given) and counts, per rollup measure, the seeds where it was flagged.
 */
export function calibrate(options: {
  seeds: readonly number[];
  baseline: string;
  candidate: string;
  releases: readonly string[];
  effects: readonly SimulatedEffect[];
  fleet?: FleetOptions;
}): CalibrationResult {
  const flagged: Record<string, number> = Object.fromEntries(ROLLUP_MEASURES.map((m) => [m, 0]));
  for (const seed of options.seeds) {
    const events = generateFleet({ ...options.fleet, seed, releases: options.releases, effects: options.effects, events: [ROLLUP] });
    const review = computeReview(installSumsOf(events), options.baseline, options.candidate);
    for (const m of review.measures) if (m.id in flagged && (m.verdict === 'better' || m.verdict === 'worse')) flagged[m.id]! += 1;
  }
  return { seeds: options.seeds.length, installs: options.fleet?.installs ?? 150, flagged };
}
