import { describe, expect, it } from 'vitest';
import { pairedDifference, pairedRatio, pairedRatioInterval, roundOrder } from '../../bench/stats.js';

describe('paired ratio interval', () => {
  it('brackets the paired median with the order statistics a binomial count allows', () => {
    // 21 pairs: ratios 0.90, 0.91, … 1.10. At 95 % the interval is the 6th and 16th smallest.
    const floor = Array.from({ length: 21 }, () => 100);
    const run = floor.map((_, i) => 90 + i);
    expect(pairedRatio(run, floor)).toBe(1);
    expect(pairedRatioInterval(run, floor)).toEqual([0.95, 1.05]);
  });

  it('is null where no interval reaches 95 %', () => {
    expect(pairedRatioInterval([1, 2, 3, 4, 5], [1, 1, 1, 1, 1])).toBeNull();
    expect(pairedRatioInterval([1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 1])).toEqual([1, 6]);
  });

  it('narrows as the rounds grow', () => {
    const floor = Array.from({ length: 81 }, () => 100);
    const run = floor.map((_, i) => 90 + i / 4);
    const [low, high] = pairedRatioInterval(run, floor)!;
    expect(low).toBeGreaterThan(0.95);
    expect(high).toBeLessThan(1.05);
    expect(low).toBeLessThanOrEqual(pairedRatio(run, floor));
    expect(high).toBeGreaterThanOrEqual(pairedRatio(run, floor));
  });
});

describe('round order', () => {
  const variants = ['unhooked', 'hooked', 'hooks_only', 'cold', 'floor'];

  it('runs every variant once a round, in an order a rerun draws again', () => {
    for (let round = 0; round < 20; round += 1) {
      expect([...roundOrder(variants, round)].sort()).toEqual([...variants].sort());
      expect(roundOrder(variants, round)).toEqual(roundOrder(variants, round));
    }
  });

  it('does not keep one variant behind the same one every round', () => {
    const before = new Set<string>();
    for (let round = 0; round < 20; round += 1) {
      const order = roundOrder(variants, round);
      before.add(order[order.indexOf('floor') - 1] ?? 'first');
    }
    expect(before.size).toBeGreaterThan(2);
  });
});

describe('paired difference', () => {
  it('gives the median difference of each round’s pair between its 95 % bounds', () => {
    const floor = Array.from({ length: 21 }, (_, i) => 500 + i * 3);
    const run = floor.map((x, i) => x + 10 + (i % 7) - 3);
    const [low, median, high] = pairedDifference(run, floor)!;
    expect(median).toBe(10);
    expect(low).toBeLessThanOrEqual(median);
    expect(high).toBeGreaterThanOrEqual(median);
    expect(pairedDifference([1, 2], [1, 1])).toBeNull();
  });
});
