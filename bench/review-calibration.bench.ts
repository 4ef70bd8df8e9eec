import { DEFAULT_FLEET } from '../src/fleet/dashboards/index.js';
import { calibrate, ROLLUP_MEASURES, type CalibrationResult } from '../test/support/review-calibration.js';

export const name = 'review-calibration';

const RELEASES = ['0.1.0', '0.2.0', '0.3.0'];

/** Wilson 95 % interval of a proportion, so a rate over N seeds says how sure it is. */
function wilson(k: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [+(centre - half).toFixed(3), +(centre + half).toFixed(3)];
}

function rates(result: CalibrationResult) {
  const per = Object.fromEntries(
    ROLLUP_MEASURES.map((m) => [
      m,
      { flagged: result.flagged[m], rate: +(result.flagged[m]! / result.seeds).toFixed(3), ci95: wilson(result.flagged[m]!, result.seeds) },
    ]),
  );
  const k = ROLLUP_MEASURES.reduce((n, m) => n + result.flagged[m]!, 0);
  const trials = ROLLUP_MEASURES.length * result.seeds;
  return {
    seeds: result.seeds,
    installs: result.installs,
    per_measure: per,
    pooled: { flagged: k, trials, rate: +(k / trials).toFixed(3), ci95: wilson(k, trials) },
  };
}

/**
 * The heavy half of the calibration test: 0.2.0 against 0.3.0 on BENCH_REVIEW_SEEDS simulated
 * fleets each (default 300) — with no effect (a flag is a false flag), with turns_dropped_rate
 * −40 % on 0.3.0 (a flag of turns_dropped_rate is a detection), and with no effect on a small
 * fleet of 40 installs.
 */
export async function run(): Promise<Record<string, unknown>> {
  const count = Number(process.env.BENCH_REVIEW_SEEDS ?? 300);
  const seeds = Array.from({ length: count }, (_, i) => 10_000 + i);
  const started = performance.now();
  const noEffect = calibrate({ seeds, baseline: '0.2.0', candidate: '0.3.0', releases: RELEASES, effects: [] });
  const effect = calibrate({
    seeds,
    baseline: '0.2.0',
    candidate: '0.3.0',
    releases: RELEASES,
    effects: [{ measure: 'turns_dropped_rate', change: -0.4, version: '0.3.0' }],
  });
  const small = calibrate({ seeds, baseline: '0.2.0', candidate: '0.3.0', releases: RELEASES, effects: [], fleet: { installs: 40 } });
  return {
    fleet: { installs: DEFAULT_FLEET.installs, weeks: DEFAULT_FLEET.weeks, releases: RELEASES, compared: '0.2.0 → 0.3.0' },
    false_flags_no_effect: rates(noEffect),
    detection_turns_dropped_rate_minus_40pct: {
      seeds: effect.seeds,
      installs: effect.installs,
      flagged: effect.flagged.turns_dropped_rate,
      rate: +(effect.flagged.turns_dropped_rate! / effect.seeds).toFixed(3),
      ci95: wilson(effect.flagged.turns_dropped_rate!, effect.seeds),
    },
    false_flags_no_effect_40_installs: rates(small),
    seconds: Math.round((performance.now() - started) / 1000),
  };
}
