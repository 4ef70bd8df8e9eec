/**
 * Subagents never crowd out the main agent's memory (issue 29, item 3). The rule
 * (src/context/select.ts): the main agent's observations are chosen first, from the whole
 * budget; subagents' fill what is left, at most SUBAGENT_SHARE of the budget.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildContext, createContextQuery, estimateTokens, selectContext } from '../../src/context/index.js';
import { SUBAGENT_SHARE } from '../../src/context/select.js';
import { renderObservation, type ContextObservation } from '../../src/context/render.js';
import { openStore } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const NOW = Date.UTC(2026, 10, 23);

function candidate(id: number, over: Partial<ContextObservation> = {}): ContextObservation {
  return {
    id,
    type: 'discovery',
    title: `observation ${id}`,
    subtitle: 'a subtitle that takes some room',
    facts: ['a fact about it'],
    filesModified: [],
    createdAt: NOW - id * 60_000,
    discoveryTokens: 1000,
    ...over,
  };
}

const select = (candidates: ContextObservation[], budgetTokens: number) => selectContext({ project: 'p', candidates, summary: null, budgetTokens, nowMs: NOW });

describe('subagents in the context', () => {
  it('leaves the main agent exactly the memory it gets without them, however many and however useful theirs', () => {
    const main = Array.from({ length: 60 }, (_, i) => candidate(100 + i, { type: 'discovery', createdAt: NOW - 5 * 86_400_000 - i }));
    // Newer decisions by a subagent: more useful by the ranking than every main observation.
    const subagent = Array.from({ length: 300 }, (_, i) => candidate(1_000 + i, { type: 'decision', subagent: 'Explore', createdAt: NOW - i }));
    for (const budget of [300, 800, 2_000]) {
      const alone = select(main, budget).injected.map((o) => o.id);
      const together = select([...subagent, ...main], budget);
      expect(together.injected.filter((o) => !o.subagent).map((o) => o.id)).toEqual(alone);
      expect(together.tokens).toBeLessThanOrEqual(budget);
    }
  });

  it('gives subagents at most a quarter of the budget when the main agent has little', () => {
    const main = [candidate(1)];
    const subagent = Array.from({ length: 200 }, (_, i) => candidate(100 + i, { subagent: 'general-purpose' }));
    const budget = 2_000;
    const s = select([...main, ...subagent], budget);
    const theirs = s.injected.filter((o) => o.subagent);
    expect(theirs.length).toBeGreaterThan(0);
    const units = theirs.reduce((sum, o) => sum + estimateTokens(renderObservation(o)), 0);
    expect(units).toBeLessThanOrEqual(budget * SUBAGENT_SHARE);
    expect(s.injected[0]!.id).toBe(1);
    expect(s.markdown).toContain('· subagent general-purpose)');
  });

  it('reads the main agent’s candidates apart from a burst of subagent observations', () => {
    const temp = makeTempDir('memtrace-subagent-context-');
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    try {
      const insert = (title: string, createdAt: number, agent: { id: string; type: string } | null) =>
        store.observations.insert(
          { type: 'discovery', title, subtitle: '', narrative: '', facts: [], concepts: [], files_read: [], files_modified: [] },
          {
            sessionId: 's',
            project: '/work/app',
            sourceMessageIds: [],
            provider: 'replay',
            model: null,
            promptVersion: 't',
            discoveryTokens: null,
            createdAt,
            agent,
          },
        );
      insert('The main agent learned the deploy needs a migration first', NOW - 86_400_000, null);
      store.db.transaction(() => {
        for (let i = 0; i < 500; i += 1) insert(`Explore read file ${i}`, NOW - i, { id: 'a1', type: 'Explore' });
      })();
      const result = buildContext(createContextQuery(store.db), { project: '/work/app', budgetTokens: 2_000, nowMs: NOW });
      expect(result.markdown).toContain('The main agent learned the deploy needs a migration first');
      expect(result.markdown).toContain('· subagent Explore)');
    } finally {
      store.close();
      temp.cleanup();
    }
  });
});
