import { describe, expect, it } from 'vitest';
import { decideBatch, DEFAULT_BATCH_LIMITS } from '../../src/worker/batch-policy.js';
import type { PendingHead } from '../../src/store/index.js';

const limits = { maxEvents: 3, maxTokens: 100, maxWaitMs: 60_000 };
const event = (id: number, over: Partial<PendingHead> = {}): PendingHead => ({ id, kind: 'observation', notBefore: 0, createdAt: 1_000, bytes: 40, ...over });
const end = (id: number): PendingHead => ({ ...event(id), kind: 'summary' });

describe('when a turn’s events go to the observer', () => {
  it('closes a batch at the turn’s end, which it includes, and leaves what follows for the next', () => {
    expect(decideBatch([event(1), event(2), end(3), event(4)], 2_000, limits)).toEqual({ close: [1, 2, 3], reason: 'turn_end' });
  });

  it('keeps an open turn waiting until its oldest event has waited maxWaitMs, then closes it', () => {
    expect(decideBatch([event(1), event(2)], 2_000, limits)).toEqual({ waitUntilMs: 61_000 });
    expect(decideBatch([event(1), event(2)], 61_000, limits)).toEqual({ close: [1, 2], reason: 'waited' });
  });

  it('closes a long turn early by count and by size, always with at least one event', () => {
    expect(decideBatch([event(1), event(2), event(3), event(4)], 2_000, limits)).toEqual({ close: [1, 2, 3], reason: 'events' });
    expect(decideBatch([event(1, { bytes: 300 }), event(2, { bytes: 300 })], 2_000, limits)).toEqual({ close: [1], reason: 'tokens' });
    expect(decideBatch([event(1, { bytes: 10_000 })], 2_000, limits)).toEqual({ waitUntilMs: 61_000 });
  });

  it('a summary request alone is a batch of its own (a turn without tool calls)', () => {
    expect(decideBatch([end(7)], 2_000, limits)).toEqual({ close: [7], reason: 'turn_end' });
  });

  it('holds a batch released for a retry, in order, until its backoff ends', () => {
    expect(decideBatch([event(1, { notBefore: 9_000 }), event(2, { notBefore: 9_000 }), end(3)], 2_000, limits)).toEqual({ waitUntilMs: 9_000 });
    expect(decideBatch([event(1), event(2, { notBefore: 90_000 })], 70_000, limits)).toEqual({ close: [1], reason: 'waited' });
  });

  it('has nothing to do without pending messages', () => {
    expect(decideBatch([], 0, DEFAULT_BATCH_LIMITS)).toEqual({ empty: true });
  });
});
