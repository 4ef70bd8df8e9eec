import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { applyForget, planForget } from '../../src/memory/index.js';
import { openStore } from '../../src/store/index.js';
import { addObservation } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

/** Words enough that the index spans many more pages than one merge step writes. */
function narrative(i: number): string {
  return Array.from({ length: 200 }, (_, w) => `w${(i * 7919 + w * 104729) % 50_000}`).join(' ');
}

/**
 * Issue 36: forget merged the search index with FTS5's one-shot 'optimize', one write that held
 * the store's write lock for minutes on a million-row index while a worker's hooks waited. It now
 * merges in steps, each its own transaction, and rests between them: another connection (the
 * worker) can write at every rest without waiting at all.
 */
describe('forget and the write lock', () => {
  it('merges the index in several short transactions, another connection writing between each, and still removes the item', async () => {
    const temp = makeTempDir('memtrace-forget-steps-');
    const file = path.join(temp.dir, 'memtrace.db');
    const store = openStore(file);
    // The worker's connection: it refuses to wait, so a write that finds the lock held fails.
    const worker = new Database(file, { timeout: 0 });
    try {
      const ids = store.db.transaction(() => Array.from({ length: 400 }, (_, i) => addObservation(store, { title: `note ${i}`, narrative: narrative(i) })))();
      const gone = addObservation(store, { title: 'the forgotten one', narrative: 'xqzjvkwq lives here' });
      const plan = planForget(store.db, { observationIds: [], match: 'xqzjvkwq' });
      expect(plan.items.map((i) => i.id)).toEqual([gone]);

      let rests = 0;
      const workerWrites: number[] = [];
      const result = await applyForget(store.db, plan, {
        elapsedMs: () => performance.now(),
        rest: async () => {
          rests += 1;
          worker.prepare('BEGIN IMMEDIATE').run();
          worker.prepare('UPDATE observations SET title = title WHERE id = ?').run(ids[rests % ids.length]);
          worker.prepare('COMMIT').run();
          workerWrites.push(rests);
        },
      });

      expect(result.observations).toBe(1);
      // Two indexes (the whole one and the recent one), at least one step each: more than two means one took several.
      expect(rests).toBeGreaterThan(2);
      expect(workerWrites).toHaveLength(rests);
      expect(store.db.prepare("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'xqzjvkwq'").pluck().get()).toBe(0);
      expect(store.db.prepare("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'w17'").pluck().get()).toBeGreaterThan(0);
    } finally {
      worker.close();
      store.close();
      temp.cleanup();
    }
  });
});
