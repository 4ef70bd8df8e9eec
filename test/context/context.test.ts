import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildContext, createContextQuery, estimateTokens, parseBudget, selectContext } from '../../src/context/index.js';
import { openStore } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 23);

function candidate(id: number, over: Partial<Parameters<typeof selectContext>[0]['candidates'][number]> = {}) {
  return {
    id,
    type: 'discovery' as const,
    title: `observation ${id}`,
    subtitle: 'a subtitle',
    facts: ['a fact'],
    filesModified: [],
    createdAt: NOW - id * 1000,
    discoveryTokens: 1000,
    ...over,
  };
}

describe('estimateTokens', () => {
  it('counts ASCII prose at about four characters a token', () => {
    expect(estimateTokens('a'.repeat(400))).toBe(100);
  });

  it('does not count CJK as four characters a token', () => {
    expect(estimateTokens('日本語のテキスト'.repeat(10))).toBeGreaterThanOrEqual(80);
  });

  it('counts an emoji as several tokens, not half of one', () => {
    expect(estimateTokens('🙂'.repeat(10))).toBeGreaterThanOrEqual(20);
  });
});

describe('selectContext', () => {
  it('never exceeds the budget by the estimator', () => {
    const candidates = Array.from({ length: 200 }, (_, i) => candidate(i + 1));
    for (const budget of [50, 120, 500, 2_000]) {
      const s = selectContext({ project: 'p', candidates, summary: null, budgetTokens: budget, nowMs: NOW });
      expect(estimateTokens(s.markdown)).toBeLessThanOrEqual(budget);
      expect(s.tokens).toBe(estimateTokens(s.markdown));
    }
  });

  it('puts the most useful first: a recent decision before an old discovery', () => {
    const s = selectContext({
      project: 'p',
      candidates: [
        candidate(1, { type: 'discovery', title: 'old discovery', createdAt: NOW - 10 * DAY }),
        candidate(2, { type: 'decision', title: 'fresh decision', createdAt: NOW - DAY / 2 }),
      ],
      summary: null,
      budgetTokens: 2_000,
      nowMs: NOW,
    });
    expect(s.markdown.indexOf('fresh decision')).toBeLessThan(s.markdown.indexOf('old discovery'));
  });

  it('puts the last summary first and drops repeated titles', () => {
    const s = selectContext({
      project: 'p',
      candidates: [candidate(1, { title: 'Same' }), candidate(2, { title: 'same ' })],
      summary: { request: 'fix login', learned: 'cookies', completed: 'fixed', next_steps: 'ship', createdAt: NOW },
      budgetTokens: 2_000,
      nowMs: NOW,
    });
    expect(s.markdown.indexOf('Last session')).toBeLessThan(s.markdown.indexOf('Recent observations'));
    expect(s.injected).toHaveLength(1);
  });

  it('says nothing, not even its heading, for a project it remembers nothing of', () => {
    expect(selectContext({ project: 'p', candidates: [], summary: null, history: [], budgetTokens: 2_000, nowMs: NOW })).toEqual({
      markdown: '',
      tokens: 0,
      injected: [],
      history: [],
    });
  });

  it('gives a project whose only memory is its last summary that summary', () => {
    const s = selectContext({
      project: 'p',
      candidates: [],
      summary: { request: 'fix login', learned: 'cookies', completed: 'fixed', next_steps: 'ship', createdAt: NOW },
      budgetTokens: 2_000,
      nowMs: NOW,
    });
    expect(s.markdown).toContain('fix login');
    expect(s.markdown).not.toContain('Recent observations');
  });
});

describe('buildContext on a real SQLite file', () => {
  it('renders the project’s observations and summary, and reports the economics', () => {
    const temp = makeTempDir();
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    const base = { sessionId: 's', sourceMessageIds: [1], provider: 'replay', model: 'replay', promptVersion: 'obs-v1', createdAt: NOW - 1000 };
    const obs = { subtitle: '', narrative: 'n', facts: ['f'], concepts: [], files_read: [], files_modified: ['a.ts'] };
    store.observations.insert({ ...obs, type: 'bugfix', title: 'Fixed the login race' }, { ...base, project: 'app', discoveryTokens: 1500 });
    store.observations.insert({ ...obs, type: 'feature', title: 'Other project' }, { ...base, project: 'other', discoveryTokens: 1500 });
    store.summaries.insert(
      { request: 'fix login', investigated: '', learned: 'cookie order', completed: 'fixed', next_steps: '', notes: '' },
      { ...base, project: 'app' },
    );
    const result = buildContext(createContextQuery(store.db), { project: 'app', budgetTokens: 1_000, nowMs: NOW });
    expect(result.markdown).toContain('Fixed the login race');
    expect(result.markdown).toContain('fix login');
    expect(result.markdown).not.toContain('Other project');
    expect(result.observationsInjected).toBe(1);
    expect(result.tokensSavedVsNaive).toBe(1500 - result.tokensInjected);
    store.close();
    temp.cleanup();
  });
});

describe('parseBudget', () => {
  it('defaults, accepts a range and names the problem otherwise', () => {
    expect(parseBudget(undefined)).toBe(2_000);
    expect(parseBudget('500')).toBe(500);
    expect(parseBudget('abc')).toEqual({ error: 'must be a whole number of tokens' });
    expect(parseBudget('10')).toEqual({ error: 'must be between 50 and 100000' });
  });
});
