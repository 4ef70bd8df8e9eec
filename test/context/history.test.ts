import { describe, expect, it } from 'vitest';
import { estimateTokens, selectContext, selectHistory, type ContextHistorySummary } from '../../src/context/index.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 23);

function summary(id: number, over: Partial<ContextHistorySummary> = {}): ContextHistorySummary {
  return {
    id,
    depth: 1,
    content: `History part ${id}: decisions about the retry path and the queue.`,
    observationCount: 20,
    earliestAt: NOW - (100 - id) * DAY,
    latestAt: NOW - (99 - id) * DAY,
    ...over,
  };
}
const observation = (id: number) => ({
  id,
  type: 'decision' as const,
  title: `recent ${id}`,
  subtitle: '',
  facts: ['a fact'],
  filesModified: [],
  createdAt: NOW - id * 1000,
  discoveryTokens: 100,
});

describe('selectHistory', () => {
  it('takes the newest top summaries that fit and renders them oldest first', () => {
    const top = [summary(3), summary(2), summary(1)];
    const all = selectHistory(top, 10_000);
    expect(all.chosen.map((s) => s.id)).toEqual([1, 2, 3]);
    const tight = selectHistory(top, all.units - 10);
    expect(tight.chosen.map((s) => s.id)).toEqual([2, 3]);
    expect(tight.units).toBeLessThanOrEqual(all.units - 10);
  });

  it('opens the newest condensed summary into its more detailed sources when there is room', () => {
    const sources = [
      summary(10, { depth: 0, content: 'Leaf ten: fixed the retry loop.', earliestAt: NOW - 3 * DAY }),
      summary(11, { depth: 0, content: 'Leaf eleven: documented the backoff.', earliestAt: NOW - 2 * DAY }),
    ];
    const top = [summary(5, { sources })];
    expect(selectHistory(top, 10_000).chosen.map((s) => s.id)).toEqual([10, 11]);
    const onlyParent = selectHistory(top, selectHistory([summary(5)], 10_000).units);
    expect(onlyParent.chosen.map((s) => s.id)).toEqual([5]);
  });
});

describe('selectContext with compacted history', () => {
  it('never exceeds the budget and keeps recent observations raw beside the history', () => {
    const history = Array.from({ length: 30 }, (_, i) => summary(30 - i, { content: `History part ${30 - i}: ${'decision and reason. '.repeat(10)}` }));
    const candidates = Array.from({ length: 60 }, (_, i) => observation(i + 1));
    for (const budget of [50, 120, 500, 2_000, 8_000]) {
      const s = selectContext({ project: 'p', candidates, summary: null, history, budgetTokens: budget, nowMs: NOW });
      expect(estimateTokens(s.markdown)).toBeLessThanOrEqual(budget);
      expect(s.tokens).toBe(estimateTokens(s.markdown));
      if (budget >= 500) {
        expect(s.history.length).toBeGreaterThan(0);
        expect(s.injected.length).toBeGreaterThan(0);
        expect(s.markdown.indexOf('Earlier history')).toBeLessThan(s.markdown.indexOf('Recent observations'));
      }
    }
  });

  it('gives history the room observations leave', () => {
    const history = Array.from({ length: 10 }, (_, i) => summary(10 - i));
    const s = selectContext({ project: 'p', candidates: [observation(1)], summary: null, history, budgetTokens: 2_000, nowMs: NOW });
    expect(s.history).toHaveLength(10);
  });
});
