import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../src/backoff.js';

describe('backoffDelayMs', () => {
  const schedule = { baseMs: 1_000, capMs: 30_000 };
  it('doubles from the base per attempt and stops at the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 40].map((a) => backoffDelayMs(schedule, a))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });
  it('lets a longer Retry-After win, up to its own cap or else the schedule’s', () => {
    expect(backoffDelayMs(schedule, 0, { ms: 20_000 })).toBe(20_000);
    expect(backoffDelayMs(schedule, 0, { ms: 90_000 })).toBe(30_000);
    expect(backoffDelayMs(schedule, 0, { ms: 90_000, capMs: 3_600_000 })).toBe(90_000);
    expect(backoffDelayMs(schedule, 3, { ms: 10 })).toBe(8_000);
  });
  it('treats a negative or fractional attempt as the nearest valid one', () => {
    expect(backoffDelayMs(schedule, -3)).toBe(1_000);
    expect(backoffDelayMs(schedule, 1.7)).toBe(2_000);
  });
});
