import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importJsonl, TRANSACTION_MS } from '../../src/memory/import.js';
import { openStore } from '../../src/store/index.js';
import { exportLines as lines } from '../support/import-lines.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * Issue 36: import took lines into a transaction until TRANSACTION_MS had passed, then committed;
 * the commit (the search index's new segment and its merges) and the line that crossed the limit
 * came on top, so transactions held the write lock 68 ms at p95 at 100k observations. A
 * transaction now leaves room for both, learnt from the ones before it.
 */
describe('import and the cost of its commits', () => {
  it('keeps each transaction, its commit included, near TRANSACTION_MS once it has seen what a commit costs', async () => {
    const temp = makeTempDir('memtrace-import-commit-');
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    let clock = 0;
    const held: number[] = [];
    try {
      const report = await importJsonl(store, lines(400), {
        nowMs: 0,
        // A look at the clock inside a transaction is a line's worth of work (3 ms); the one after
        // it, its commit (6 ms).
        elapsedMs: () => (clock += store.db.inTransaction ? 3 : 6),
        rest: async (ms) => void held.push(ms),
      });
      expect(report).toMatchObject({ imported: 400, invalid: 0 });
      expect(store.db.prepare('SELECT count(*) FROM observations').pluck().get()).toBe(400);
      // The first transactions learn the costs; from then on none holds the lock past the limit by
      // more than a line and a look at the clock (taking lines until the limit, then committing: 30).
      const settled = held.slice(10);
      expect(settled.length).toBeGreaterThan(10);
      for (const ms of settled) expect(ms).toBeLessThanOrEqual(TRANSACTION_MS + 5);
    } finally {
      store.close();
      temp.cleanup();
    }
  });
});
