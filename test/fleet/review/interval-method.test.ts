import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/fleet/dashboards/index.js';
import {
  computeReview,
  MIN_INSTALLS,
  minDetectableEffect,
  ratioOfSums,
  REVIEW_MEASURES,
  tQuantile,
  Z_80,
  Z_975,
  type InstallSums,
} from '../../../src/fleet/review/index.js';

const DROPPED = REVIEW_MEASURES.findIndex((m) => m.id === 'turns_dropped_rate');
const OBSERVATIONS = REVIEW_MEASURES.findIndex((m) => m.id === 'observations_per_turn');

/** One install's row with `num / den` on one measure and nothing on the others. */
function row(install: string, version: string, num: number, den: number, measure = DROPPED): InstallSums {
  const zeros = () => REVIEW_MEASURES.map(() => 0);
  const r = { install, version, num: zeros(), den: zeros() };
  r.num[measure] = num;
  r.den[measure] = den;
  return r;
}

const review = (rows: InstallSums[], measure = DROPPED) => computeReview(rows, '0.1.0', '0.2.0').measures[measure]!;
const fleet = (n: number, f: (i: number) => [number, number, number, number]) =>
  Array.from({ length: n }, (_, i) => {
    const [nb, db, nc, dc] = f(i);
    return [row(`i${i}`, '0.1.0', nb, db), row(`i${i}`, '0.2.0', nc, dc)];
  }).flat();

describe('the interval method (delta method on a ratio of sums over installs)', () => {
  it('gives a zero-width difference when every install is identical', () => {
    const m = review(fleet(12, () => [3, 10, 3, 10]));
    expect(m.baseline).toEqual({ value: 0.3, low: 0.3, high: 0.3, installs: 12 });
    expect(m.difference).toEqual({ value: 0, low: 0, high: 0 });
    expect(m.verdict).toBe('no_change');
  });

  it('says insufficient_data for one install, with no interval and no minimum detectable effect', () => {
    const m = review([row('a', '0.1.0', 30, 100), row('b', '0.2.0', 5, 100)]);
    expect(m.verdict).toBe('insufficient_data');
    expect(m.baseline).toEqual({ value: 0.3, low: null, high: null, installs: 1 });
    expect(m.difference).toEqual({ value: expect.closeTo(-0.25, 12), low: null, high: null });
    expect(m.min_detectable).toBeNull();
  });

  it(`says insufficient_data below ${MIN_INSTALLS} installs a version, however clear the difference`, () => {
    expect(review(fleet(MIN_INSTALLS - 1, (i) => [30 + i, 100, 5 + i, 100])).verdict).toBe('insufficient_data');
    expect(review(fleet(MIN_INSTALLS, (i) => [30 + i, 100, 5 + i, 100])).verdict).toBe('better');
  });

  it('matches the variance worked by hand: n/(n−1) · Σ((Nᵢ − R·Dᵢ)/ΣD)²', () => {
    const sums = { num: Float64Array.from([1, 3, 2]), den: Float64Array.from([4, 6, 10]) };
    const e = ratioOfSums(sums);
    expect(e.value).toBeCloseTo(0.3, 15);
    // ψ = -0.01, 0.06, -0.05 → Σψ² = 0.0062 → × 3/2
    expect(e.se).toBeCloseTo(Math.sqrt(0.0093), 12);
  });

  it("counts installs, not turns: scaling every install's turns by 1000 leaves the interval where it was", () => {
    const random = seededRandom(7);
    const rates = Array.from(
      { length: 40 },
      () => [0.05 + 0.4 * random(), 20 + Math.floor(200 * random()), 0.05 + 0.4 * random(), 20 + Math.floor(200 * random())] as const,
    );
    const at = (scale: number) =>
      review(fleet(40, (i) => [rates[i]![0] * rates[i]![1] * scale, rates[i]![1] * scale, rates[i]![2] * rates[i]![3] * scale, rates[i]![3] * scale]));
    const once = at(1);
    const many = at(1000);
    expect(many.difference.high! - many.difference.low!).toBeCloseTo(once.difference.high! - once.difference.low!, 10);
    expect(many.min_detectable).toBeCloseTo(once.min_detectable!, 10);
  });

  it('compares an install that ran both versions with itself (the covariance narrows the difference)', () => {
    const random = seededRandom(3);
    const rates = Array.from({ length: 30 }, () => 0.05 + 0.45 * random());
    // Installs differ a lot from one another; each drops 10 % fewer turns on the candidate.
    const paired = review(fleet(30, (i) => [rates[i]! * 100, 100, rates[i]! * 90, 100]));
    const disjoint = review(rates.flatMap((r, i) => [row(`b${i}`, '0.1.0', r * 100, 100), row(`c${i}`, '0.2.0', r * 90, 100)]));
    expect(paired.difference.value).toBeCloseTo(disjoint.difference.value!, 12);
    expect(paired.verdict).toBe('better');
    expect(disjoint.verdict).toBe('no_change');
    expect(paired.min_detectable! * 3).toBeLessThan(disjoint.min_detectable!);
  });

  it('calls a change better or worse in the direction each measure calls better', () => {
    const lower = fleet(20, (i) => [20 + (i % 3), 100, 10 + (i % 3), 100]);
    expect(review(lower).verdict).toBe('better');
    expect(review(lower.map((r) => ({ ...r, version: r.version === '0.1.0' ? '0.2.0' : '0.1.0' }))).verdict).toBe('worse');
    const more = Array.from({ length: 20 }, (_, i) => [
      row(`i${i}`, '0.1.0', 70 + (i % 4), 100, OBSERVATIONS),
      row(`i${i}`, '0.2.0', 90 + (i % 4), 100, OBSERVATIONS),
    ]).flat();
    expect(review(more, OBSERVATIONS).verdict).toBe('better');
  });

  it('leaves an unknown ratio null, never 0', () => {
    const m = review(fleet(12, () => [0, 0, 0, 0]));
    expect(m.baseline.value).toBeNull();
    expect(m.verdict).toBe('insufficient_data');
  });

  it('says no change, with no minimum detectable effect, for what never happened on either version', () => {
    const m = review(fleet(12, () => [0, 50, 0, 50]));
    expect(m).toMatchObject({ verdict: 'no_change', min_detectable: null, difference: { value: 0 } });
  });

  it('gives the same review to the last bit whatever the row order, and sums an install split across rows', () => {
    const random = seededRandom(11);
    const rows = fleet(25, () => [Math.floor(40 * random()), 100, Math.floor(40 * random()), 100]);
    const shuffled = [...rows].sort(() => random() - 0.5);
    const split = shuffled.flatMap((r) =>
      r.install === 'i3'
        ? [
            { ...r, num: r.num.map((n) => n / 4), den: r.den.map((d) => d / 4) },
            { ...r, num: r.num.map((n) => (n * 3) / 4), den: r.den.map((d) => (d * 3) / 4) },
          ]
        : [r],
    );
    expect(computeReview(shuffled, '0.1.0', '0.2.0')).toEqual(computeReview(rows, '0.1.0', '0.2.0'));
    expect(computeReview(split, '0.1.0', '0.2.0').measures[DROPPED]!.difference.value).toBeCloseTo(review(rows).difference.value!, 14);
  });
});

describe('t quantiles and the minimum detectable effect', () => {
  it.each([
    [4, 2.776],
    [9, 2.262],
    [29, 2.045],
    [1000, 1.962],
  ])('t₀.₉₇₅ with %i degrees of freedom is %f', (df, expected) => {
    expect(tQuantile(Z_975, df)).toBeCloseTo(expected, 2);
  });

  it('t₀.₈₀ with 9 degrees of freedom is 0.883', () => {
    expect(tQuantile(Z_80, 9)).toBeCloseTo(0.883, 2);
  });

  it('is (t₀.₉₇₅ + t₀.₈₀) standard errors: 2.80 for a large fleet, wider for a small one', () => {
    expect(minDetectableEffect(1, 1e9)).toBeCloseTo(2.8016, 4);
    expect(minDetectableEffect(0.01, 9)).toBeCloseTo(0.01 * (2.262 + 0.883), 3);
  });
});
