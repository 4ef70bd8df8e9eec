import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { BudgetExhaustedError, createObserverBudget, nextUtcMidnight, utcDay } from '../../src/worker/observer-budget.js';
import { makeTempDir } from '../support/temp-dir.js';

const DAY = Date.UTC(2026, 10, 27, 12);
const call = (boundTokens: number) => ({ sessionId: 's', purpose: 'observe' as const, provider: 'anthropic', model: 'm', events: 3, boundTokens });
const settled = (tokensIn: number | null, tokensOut: number | null, outcome: 'ok' | 'failed' | 'unknown' = 'ok') => ({
  endedAt: DAY + 1,
  outcome,
  model: 'm',
  tokensIn,
  tokensOut,
  costUsd: null,
  costEstimated: false,
});

describe('the daily observer budget', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    temp = makeTempDir();
    store = openStore(path.join(temp.dir, 'memtrace.db'));
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });

  it('reserves a call’s bound before it and counts its reported usage after it', () => {
    const budget = createObserverBudget({ dailyTokens: 10_000 }, store.observerCalls);
    const id = budget.reserve(call(6_000), DAY);
    expect(budget.status(DAY)).toMatchObject({ countedTokens: 6_000, remainingTokens: 4_000, paused: null });
    budget.settle(id, settled(1_200, 300));
    expect(budget.status(DAY)).toMatchObject({ countedTokens: 1_500, remainingTokens: 8_500 });
  });

  it('never starts a call that might cross the line: it waits for the next UTC day and says so', () => {
    const budget = createObserverBudget({ dailyTokens: 10_000 }, store.observerCalls);
    budget.settle(budget.reserve(call(6_000), DAY), settled(5_000, 1_000));
    const refused = (() => {
      try {
        budget.reserve(call(4_500), DAY);
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refused).toBeInstanceOf(BudgetExhaustedError);
    expect((refused as BudgetExhaustedError).resumeAtMs).toBe(Date.UTC(2026, 10, 28));
    expect(budget.status(DAY).paused).toEqual({ reason: 'daily_budget', resumeAt: '2026-11-28T00:00:00.000Z' });
    // A call that fits still goes, and the next day starts from zero.
    expect(() => budget.reserve(call(1_500), DAY)).not.toThrow();
    expect(budget.status(DAY + 86_400_000)).toMatchObject({ day: '2026-11-28', countedTokens: 0, paused: null });
  });

  it('keeps counting a call whose usage stayed unknown at its reservation, and a refused call at nothing', () => {
    const budget = createObserverBudget({ dailyTokens: 100_000 }, store.observerCalls);
    budget.settle(budget.reserve(call(5_000), DAY), settled(null, null, 'unknown'));
    budget.settle(budget.reserve(call(5_000), DAY), settled(null, null, 'failed'));
    budget.settle(budget.reserve(call(5_000), DAY), settled(null, null, 'ok'));
    expect(budget.status(DAY).countedTokens).toBe(10_000);
  });

  it('remembers a provider that used more than its bound, and reserves that much more for it', () => {
    const budget = createObserverBudget({ dailyTokens: 100_000 }, store.observerCalls);
    budget.settle(budget.reserve(call(1_000), DAY), settled(1_500, 200));
    budget.reserve(call(1_000), DAY + 1);
    const rows = store.db.prepare('SELECT reserved_tokens FROM observer_calls ORDER BY id').all();
    expect(rows).toEqual([{ reserved_tokens: 1_000 }, { reserved_tokens: 1_700 }]);
  });

  it('a call a crashed worker left reserved counts at its reservation after restart', () => {
    const file = path.join(temp.dir, 'memtrace.db');
    createObserverBudget({ dailyTokens: 100_000 }, store.observerCalls).reserve(call(4_000), DAY);
    store.close();
    store = openStore(file, { recoverClaimed: true });
    expect(store.db.prepare('SELECT outcome FROM observer_calls').get()).toEqual({ outcome: 'unknown' });
    expect(createObserverBudget({ dailyTokens: 100_000 }, store.observerCalls).status(DAY).countedTokens).toBe(4_000);
  });

  it('names UTC days and midnights', () => {
    expect(utcDay(Date.UTC(2026, 0, 1, 23, 59))).toBe('2026-01-01');
    expect(nextUtcMidnight(Date.UTC(2026, 0, 1, 23, 59))).toBe(Date.UTC(2026, 0, 2));
  });
});
