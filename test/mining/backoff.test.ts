import { describe, expect, it } from 'vitest';
import { createBackoffMap, failureDelayMs, MINING_BACKOFF } from '../../src/mining/backoff.js';

const MIN = 60_000;

describe('mining backoff', () => {
  it('is 5 minutes doubling per failure, capped at 30', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => failureDelayMs(n) / MIN)).toEqual([5, 10, 20, 30, 30, 30]);
    expect(MINING_BACKOFF).toEqual({ baseMs: 5 * MIN, capMs: 30 * MIN });
  });

  it('blocks attempts inside the window only, per file, and forgets a file after a success', () => {
    const map = createBackoffMap();
    expect(map.blocked('a', 0)).toBe(false);
    expect(map.failed('a', 0)).toEqual({ failures: 1, retryAtMs: 5 * MIN, delayMs: 5 * MIN });
    expect(map.blocked('a', 5 * MIN - 1)).toBe(true);
    expect(map.blocked('b', 1)).toBe(false);
    expect(map.blocked('a', 5 * MIN)).toBe(false);
    expect(map.failed('a', 5 * MIN).delayMs).toBe(10 * MIN);
    map.succeeded('a');
    expect(map.entry('a')).toBeUndefined();
    expect(map.failed('a', 100 * MIN).delayMs).toBe(5 * MIN);
  });
});
