import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { applyForget, planForget } from '../../src/memory/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { addObservation } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 0, 1);

/** A compacted summary over `observations` (a leaf) or over `children` (condensed from them). */
function compacted(store: Store, depth: number, observations: number[], children: number[] = []): number {
  const id = Number(
    store.db
      .prepare(`INSERT INTO memory_summaries (project, kind, depth, level, content, token_count, source_token_count, first_observation_id, last_observation_id, observation_count, earliest_at, latest_at, created_at, updated_at)
        VALUES ('/work/app', ?, ?, 'normal', 'history', 10, 20, 1, 1, 1, ?, ?, ?, ?)`)
      .run(children.length > 0 ? 'condensed' : 'leaf', depth, T0, T0, T0, T0).lastInsertRowid,
  );
  for (const [i, o] of observations.entries())
    store.db.prepare('INSERT INTO summary_sources (summary_id, ordinal, observation_id) VALUES (?, ?, ?)').run(id, i, o);
  children.forEach((c, i) => {
    store.db.prepare('INSERT INTO summary_sources (summary_id, ordinal, source_summary_id) VALUES (?, ?, ?)').run(id, i, c);
    store.db.prepare('UPDATE memory_summaries SET condensed_into = ? WHERE id = ?').run(id, c);
  });
  return id;
}

/**
 * Issue 36: forget removed every item it named in one transaction: 380 items held the store's
 * write lock for 300 ms at 100k observations while a worker's hooks waited. It now removes them in
 * transactions of FORGET_STEP_MS, resting between them, and still removes every one.
 */
describe('forget removes in short transactions', () => {
  it('lets another connection write between its removals, and forgets every item and the history built from them', async () => {
    const temp = makeTempDir('memtrace-forget-short-');
    const file = path.join(temp.dir, 'memtrace.db');
    const store = openStore(file);
    // The worker's connection: it refuses to wait, so a write that finds the lock held fails.
    const worker = new Database(file, { timeout: 0 });
    try {
      const marked = Array.from({ length: 40 }, (_, i) => addObservation(store, { title: `marked ${i}`, narrative: 'qvzxkw was here' }));
      const kept = addObservation(store, { title: 'kept', narrative: 'nothing to see' });
      // Leaves over pairs of marked observations, one beside the kept one, and a condensed summary over all of them.
      const leaves = Array.from({ length: 20 }, (_, i) => compacted(store, 0, [marked[2 * i]!, marked[2 * i + 1]!]));
      const keptLeaf = compacted(store, 0, [kept]);
      compacted(store, 1, [], [...leaves, keptLeaf]);
      const plan = planForget(store.db, { observationIds: [], match: 'qvzxkw' });
      expect(plan.items).toHaveLength(40);
      expect(plan.compactedSummaries).toHaveLength(21);

      let clock = 0;
      let rests = 0;
      const result = await applyForget(store.db, plan, {
        // Each look at the clock, an item's worth of work: a transaction takes two items at most.
        elapsedMs: () => (clock += 8),
        rest: async () => {
          rests += 1;
          worker.prepare('BEGIN IMMEDIATE').run();
          worker.prepare("UPDATE observations SET title = 'kept' WHERE id = ?").run(kept);
          worker.prepare('COMMIT').run();
        },
      });

      expect(result).toMatchObject({ observations: 40, compactedSummaries: 21 });
      // 61 removals, at most two per transaction: at least 31 transactions before the index merges.
      expect(rests).toBeGreaterThan(31);
      expect(store.db.prepare('SELECT count(*) FROM observations').pluck().get()).toBe(1);
      expect(store.db.prepare("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'qvzxkw'").pluck().get()).toBe(0);
      expect(store.db.prepare('SELECT id, condensed_into FROM memory_summaries').all()).toEqual([{ id: keptLeaf, condensed_into: null }]);
      expect(store.db.prepare('SELECT count(*) FROM summary_sources').pluck().get()).toBe(1);
    } finally {
      worker.close();
      store.close();
      temp.cleanup();
    }
  });
});
