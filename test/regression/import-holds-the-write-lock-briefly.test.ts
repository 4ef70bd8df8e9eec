import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { importJsonl, TRANSACTION_MS } from '../../src/memory/import.js';
import { openStore, restBesideWorker } from '../../src/store/index.js';
import { exportLines as lines } from '../support/import-lines.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * Issue 36: `memtrace import` stored 500 lines per transaction, so a worker's hook waited for the
 * store's write lock as long as 500 lines took (seconds at a million observations). A transaction
 * now stops taking lines once it has run TRANSACTION_MS.
 */
describe('import and the write lock', () => {
  it('commits as it goes: a transaction never holds more lines than fit in its time', async () => {
    const temp = makeTempDir('memtrace-import-lock-');
    const file = path.join(temp.dir, 'memtrace.db');
    const store = openStore(file);
    const reader = new Database(file, { readonly: true });
    const uncommitted: number[] = [];
    let clock = 0;
    try {
      const report = await importJsonl(store, lines(1200), {
        nowMs: 0,
        // Each look at the clock, a line's worth of work: 8 ms.
        elapsedMs: () => (clock += 8),
        sanitize: (text) => {
          // Rows this transaction stored that another connection cannot see yet.
          const mine = Number(store.db.prepare('SELECT count(*) FROM observations').pluck().get());
          const committed = Number(reader.prepare('SELECT count(*) FROM observations').pluck().get());
          uncommitted.push(mine - committed);
          return text;
        },
      });
      expect(report.problems).toEqual([]);
      expect(report).toMatchObject({ imported: 1200, invalid: 0 });
      expect(Math.max(...uncommitted)).toBeLessThanOrEqual(Math.ceil(TRANSACTION_MS / 8));
      expect(reader.prepare('SELECT count(*) FROM observations').pluck().get()).toBe(1200);
    } finally {
      reader.close();
      store.close();
      temp.cleanup();
    }
  });

  it('rests after each transaction as long as it held the lock when a worker shares the store, and not at all without one', async () => {
    const temp = makeTempDir('memtrace-import-rest-');
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    let clock = 0;
    const slept: number[] = [];
    try {
      await importJsonl(store, lines(30), {
        nowMs: 0,
        elapsedMs: () => (clock += 8),
        rest: restBesideWorker(true, async (ms) => void slept.push(ms)),
      });
      expect(slept.length).toBeGreaterThan(1);
      for (const ms of slept) expect(ms).toBeGreaterThanOrEqual(8);
      const none: number[] = [];
      await restBesideWorker(false, async (ms) => void none.push(ms))(50);
      expect(none).toEqual([]);
    } finally {
      store.close();
      temp.cleanup();
    }
  });
});
