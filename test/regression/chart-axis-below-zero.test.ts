import { describe, expect, it } from 'vitest';
import { niceScale } from '../../src/fleet/dashboards/chart-format.js';

describe('regression: a chart of values at or above zero drew an axis down to a negative tick', () => {
  it('starts the axis at 0 when the lowest value is 0', () => {
    expect(niceScale(0, 0.3).lo).toBe(0);
    expect(niceScale(0, 640).ticks[0]).toBe(0);
  });

  it('still reaches below zero for negative values', () => {
    expect(niceScale(-120, 800).lo).toBeLessThan(-119);
  });
});
