import { describe, expect, it } from 'vitest';
import { CHECKPOINT_PACING, freshFrames, nextCheckpointDelayMs } from '../../src/store/checkpoint-pacing.js';

const pacing = { minMs: 2_000, maxMs: 30_000, targetFrames: 1_000 };

describe('the checkpointer’s pace', () => {
  it('waits the longest when nothing was written since the last checkpoint', () => {
    expect(nextCheckpointDelayMs(0, 2_000, pacing)).toBe(30_000);
  });

  it('aims at the target frames at the rate they came, within the bounds', () => {
    // An agent's pace: 70 frames in 2 s → 1,000 frames in about 28.6 s.
    expect(nextCheckpointDelayMs(70, 2_000, pacing)).toBe(28_571);
    // Slower than that: the longest wait, not a longer one.
    expect(nextCheckpointDelayMs(10, 2_000, pacing)).toBe(30_000);
    // A burst: never sooner than the shortest.
    expect(nextCheckpointDelayMs(50_000, 2_000, pacing)).toBe(2_000);
    expect(nextCheckpointDelayMs(1_000, 10_000, pacing)).toBe(10_000);
  });

  it('counts the whole log as new once a checkpoint copied it all back, and only its growth otherwise', () => {
    const before = { log: 400, complete: true, dataVersion: 3 };
    expect(freshFrames(before, { log: 70, complete: true, dataVersion: 4 })).toBe(70);
    expect(freshFrames({ ...before, complete: false }, { log: 470, complete: false, dataVersion: 4 })).toBe(70);
  });

  it('counts nothing new when no other connection committed, whatever the log still holds', () => {
    expect(freshFrames({ log: 400, complete: true, dataVersion: 3 }, { log: 400, complete: true, dataVersion: 3 })).toBe(0);
    expect(freshFrames({ log: 400, complete: true, dataVersion: 3 }, { log: -1, complete: false, dataVersion: 4 })).toBe(0);
  });

  it('keeps the shortest wait of before and the log a few megabytes at most between checkpoints', () => {
    expect(CHECKPOINT_PACING.minMs).toBe(2_000);
    expect(CHECKPOINT_PACING.targetFrames * 4096).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(CHECKPOINT_PACING.maxMs).toBeGreaterThan(CHECKPOINT_PACING.minMs);
  });
});
