import { describe, expect, it } from 'vitest';
import { createUptimeClock } from '../../src/worker/uptime.js';

describe('the uptime clock hook calls are timed by', () => {
  it('reads /proc/uptime at most once per interval and carries it forward by the monotonic clock', () => {
    let monotonic = 5_000;
    const reads: number[] = [];
    const uptime = createUptimeClock(
      () => {
        reads.push(monotonic);
        return 100 + monotonic / 1000;
      },
      () => monotonic,
      1_000,
    );
    expect(uptime()).toBe(105);
    monotonic += 250;
    expect(uptime()).toBeCloseTo(105.25, 6);
    monotonic += 749;
    expect(uptime()).toBeCloseTo(105.999, 6);
    expect(reads).toEqual([5_000]);
    monotonic += 1;
    expect(uptime()).toBe(106);
    expect(reads).toEqual([5_000, 6_000]);
  });

  it('reads again after time it cannot account for, and says nothing where there is no /proc', () => {
    let monotonic = 10_000;
    let value: number | null = 50;
    let reads = 0;
    const uptime = createUptimeClock(
      () => {
        reads += 1;
        return value;
      },
      () => monotonic,
    );
    expect(uptime()).toBe(50);
    monotonic -= 1;
    expect(uptime()).toBe(50);
    expect(reads).toBe(2);
    value = null;
    monotonic += 5_000;
    expect(uptime()).toBeNull();
    expect(uptime()).toBeNull();
    expect(reads).toBe(4);
  });
});
