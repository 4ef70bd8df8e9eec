import { describe, expect, it } from 'vitest';
import { DEFAULT_FLEET } from '../../../src/fleet/dashboards/index.js';
import { calibrate, ROLLUP_MEASURES } from '../../support/review-calibration.js';

/**
 * The review is calibrated: on simulated fleets where two releases behave alike it flags a measure
 * in about 5 % of seeds, and it finds a 40 % fix on the default fleet in most seeds. Twenty seeds
 * keep this in the suite; `npm run bench -- review-calibration` runs hundreds and prints the rates.
 */
const SEEDS = Array.from({ length: 20 }, (_, i) => 1 + i);
const RELEASES = ['0.1.0', '0.2.0', '0.3.0'];

describe(`release review calibration (default fleet: ${DEFAULT_FLEET.installs} installs, ${SEEDS.length} seeds, 0.2.0 against 0.3.0)`, () => {
  it('flags a measure in about 5 % of seeds when the candidate changes nothing (not 30 %)', () => {
    const result = calibrate({ seeds: SEEDS, baseline: '0.2.0', candidate: '0.3.0', releases: RELEASES, effects: [] });
    const pooled = ROLLUP_MEASURES.reduce((n, m) => n + result.flagged[m]!, 0) / (ROLLUP_MEASURES.length * SEEDS.length);
    expect(result.flagged.turns_dropped_rate).toBeLessThanOrEqual(3);
    expect(pooled).toBeLessThanOrEqual(0.1);
  }, 600_000);

  it('finds a 40 % drop in turns_dropped_rate in most seeds', () => {
    const result = calibrate({
      seeds: SEEDS,
      baseline: '0.2.0',
      candidate: '0.3.0',
      releases: RELEASES,
      effects: [{ measure: 'turns_dropped_rate', change: -0.4, version: '0.3.0' }],
    });
    expect(result.flagged.turns_dropped_rate).toBeGreaterThanOrEqual(16);
  }, 600_000);
});
