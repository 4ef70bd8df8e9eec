import { describe, expect, it } from 'vitest';
import { afterFailure, afterIdle, INITIAL_STATE, isDue, planCompaction, type FrontierSummary } from '../../src/compaction/index.js';
import { backoffDelayMs } from '../../src/backoff.js';

const config = { budgetTokens: 1_000, fanIn: 3, leafMinInputTokens: 200 };
const top = (id: number, depth: number, tokens = 100): FrontierSummary => ({ id, depth, tokens, lastObservationId: id * 10 });
const run = (n: number, tokens = 100) => Array.from({ length: n }, (_, i) => ({ id: i + 1, tokens }));

describe('planCompaction', () => {
  it('does nothing within budget, or when off', () => {
    expect(planCompaction({ frontier: [top(1, 0)], rawTokens: 500, rawTokensComplete: true, leafRun: run(3) }, config)).toEqual({
      action: 'none',
      reason: 'within_budget',
    });
    expect(planCompaction({ frontier: [], rawTokens: 5_000, rawTokensComplete: false, leafRun: run(3) }, { ...config, budgetTokens: 0 })).toEqual({
      action: 'none',
      reason: 'disabled',
    });
  });

  it('condenses the oldest full group of one depth before making a new leaf', () => {
    const frontier = [top(1, 1), top(2, 0), top(3, 0), top(4, 0), top(5, 0)];
    expect(planCompaction({ frontier, rawTokens: 2_000, rawTokensComplete: false, leafRun: run(5) }, config)).toEqual({
      action: 'condense',
      depth: 0,
      sourceIds: [2, 3, 4],
    });
  });

  it('makes a leaf over the oldest raw run when no group is full', () => {
    expect(planCompaction({ frontier: [top(1, 0)], rawTokens: 2_000, rawTokensComplete: false, leafRun: run(4) }, config)).toEqual({
      action: 'leaf',
      observationIds: [1, 2, 3, 4],
    });
  });

  it('folds a partial group when no raw run is worth a call, else says nothing is left', () => {
    const frontier = [top(1, 1, 400), top(2, 0, 150), top(3, 0, 150)];
    expect(planCompaction({ frontier, rawTokens: 900, rawTokensComplete: true, leafRun: run(1, 50) }, config)).toEqual({
      action: 'condense',
      depth: 0,
      sourceIds: [2, 3],
    });
    expect(planCompaction({ frontier: [top(1, 2, 600), top(2, 1, 300)], rawTokens: 900, rawTokensComplete: true, leafRun: [] }, config)).toEqual({
      action: 'nothing_to_compact',
    });
  });
});

describe('retry policy', () => {
  const schedule = { baseMs: 300_000, capMs: 1_800_000 };
  it('waits 5 min, doubling, capped at 30 min; a longer Retry-After wins within the cap', () => {
    expect([0, 1, 2, 3, 4, 9].map((a) => backoffDelayMs(schedule, a) / 60_000)).toEqual([5, 10, 20, 30, 30, 30]);
    expect(backoffDelayMs(schedule, 0, { ms: 900_000 })).toBe(900_000);
    expect(backoffDelayMs(schedule, 0, { ms: 7_200_000 })).toBe(1_800_000);
  });

  it('holds an auth failure until a newer observation shows the provider works, with a probe at the cap', () => {
    const s = afterFailure(INITIAL_STATE, 'auth', { nowMs: 0, retryAfterMs: null, latestObservationId: 40 }, schedule);
    expect(isDue(s, { nowMs: 1_000_000, latestObservationId: 40 })).toBe(false);
    expect(isDue(s, { nowMs: 1_000_000, latestObservationId: 41 })).toBe(true);
    expect(isDue(s, { nowMs: 1_800_000, latestObservationId: 40 })).toBe(true);
  });

  it('idles after nothing to compact until the project grows, and ignores shutdown aborts', () => {
    const idle = afterIdle(12);
    expect(isDue(idle, { nowMs: 10 ** 12, latestObservationId: 12 })).toBe(false);
    expect(isDue(idle, { nowMs: 0, latestObservationId: 13 })).toBe(true);
    expect(afterFailure(INITIAL_STATE, 'aborted', { nowMs: 5, retryAfterMs: null, latestObservationId: 1 }, schedule)).toBe(INITIAL_STATE);
  });
});
