import { describe, expect, it } from 'vitest';
import { sinkRetryDelayMs } from '../../src/telemetry/delivery.js';

describe('sink backoff', () => {
  it('is one schedule for the sink: seconds during a short outage, minutes after a long one', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => sinkRetryDelayMs(n, 0))).toEqual([2_000, 4_000, 8_000, 16_000, 20_000, 20_000]);
    expect(sinkRetryDelayMs(12, 20 * 60_000)).toBe(300_000);
  });
});
