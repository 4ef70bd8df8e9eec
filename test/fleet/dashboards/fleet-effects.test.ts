import { describe, expect, it } from 'vitest';
import {
  generateFleet,
  MEMTRACE_VERSIONS,
  parseEffect,
  releasesFor,
  releaseWeek,
  ROLLUP,
  SIMULATED_EFFECT_MEASURES,
  simulateFleet,
  type SimulatedEffect,
} from '../../../src/fleet/dashboards/index.js';
import { computeReview, REVIEW_MEASURES } from '../../../src/fleet/review/index.js';
import { installSumsOf } from '../../support/review-calibration.js';

const NOW = Date.UTC(2026, 7, 19, 12);

describe('simulated effects', () => {
  it('reads <measure>:<relative change>@<version>', () => {
    expect(parseEffect('turns_dropped_rate:-0.4@0.3.0')).toEqual({ ok: true, effect: { measure: 'turns_dropped_rate', change: -0.4, version: '0.3.0' } });
    expect(parseEffect('hook_ms_per_call:+.5@0.2.0')).toMatchObject({ ok: true, effect: { change: 0.5 } });
  });

  it.each([
    ['turns_dropped_rate-0.4@0.3.0', '<measure>:<relative change>@<version>'],
    ['abort_rate_quota:-0.4@0.3.0', 'can move'],
    ['turns_dropped_rate:-1.5@0.3.0', 'between -0.9 and 1'],
    ['turns_dropped_rate:-0.4@next', 'not a version number'],
    ['poisoned_share:-0.5@0.2.0', 'needs a legacy release'],
  ])('refuses %s with a reason', (spec, reason) => {
    const parsed = parseEffect(spec);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toContain(reason);
  });

  it('names only measures the release review knows', () => {
    for (const id of SIMULATED_EFFECT_MEASURES) expect(REVIEW_MEASURES.map((m) => m.id)).toContain(id);
  });

  it('ships a newer version as the next release and refuses an older one the fleet never ran', () => {
    const effect = (version: string): SimulatedEffect => ({ measure: 'turns_dropped_rate', change: -0.4, version });
    expect(releasesFor([effect('0.3.0')])).toEqual({ ok: true, releases: [...MEMTRACE_VERSIONS, '0.3.0'] });
    expect(releasesFor([effect('0.2.0'), effect('13.6.0')])).toEqual({ ok: true, releases: [...MEMTRACE_VERSIONS] });
    expect(releasesFor([effect('0.1.5')])).toMatchObject({ ok: false, reason: expect.stringContaining('not in the simulated fleet') });
  });

  it('ships each later release later in the span', () => {
    expect([1, 2, 3].map((k) => releaseWeek(12, k))).toEqual([7, 9, 10]);
  });

  it('builds only the events asked for, exactly as the whole fleet has them', () => {
    const options = { seed: 4, installs: 25, nowMs: NOW, releases: ['0.1.0', '0.2.0', '0.3.0'] };
    expect([...generateFleet({ ...options, events: [ROLLUP] })]).toEqual(simulateFleet(options).filter((e) => e.event === ROLLUP));
  });

  it('moves the measure on its version by the factor asked; other versions stay as they were, up to noise', () => {
    const options = { seed: 8, installs: 600, nowMs: NOW, releases: ['0.1.0', '0.2.0', '0.3.0'], events: [ROLLUP] };
    const index = REVIEW_MEASURES.findIndex((m) => m.id === 'turns_dropped_rate');
    const value = (effects: SimulatedEffect[], candidate: string) =>
      computeReview(installSumsOf(generateFleet({ ...options, effects })), '0.1.0', candidate).measures[index]!;
    const before = value([], '0.3.0');
    const after = value([{ measure: 'turns_dropped_rate', change: -0.4, version: '0.3.0' }], '0.3.0');
    // Same installs and sessions; the draws after a thinned drop differ, so the rest agrees up to noise.
    expect(after.candidate.value! / before.candidate.value!).toBeGreaterThan(0.55);
    expect(after.candidate.value! / before.candidate.value!).toBeLessThan(0.65);
    expect(after.baseline.value! / before.baseline.value!).toBeGreaterThan(0.95);
    expect(after.baseline.value! / before.baseline.value!).toBeLessThan(1.05);
  }, 120_000);
});
