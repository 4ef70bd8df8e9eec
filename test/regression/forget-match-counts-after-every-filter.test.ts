import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ForgetRefusedError, planForget } from '../../src/memory/index.js';
import { MAX_SEARCH_LIMIT } from '../../src/memory/search.js';
import { openStore } from '../../src/store/index.js';
import { addObservation } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 0, 1);

/**
 * Issue 36: `forget --match` refused once the words matched 1,000 items in the project, before
 * --session and --before narrowed them, though its refusal told the user to add those flags. The
 * limit now counts what every filter leaves.
 */
describe('forget --match and its limit', () => {
  it('forgets a few matches of one session among more than the limit, and still refuses when the filters leave too many', () => {
    const temp = makeTempDir('memtrace-forget-limit-');
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    try {
      store.db.transaction(() => {
        for (let i = 0; i < MAX_SEARCH_LIMIT + 20; i += 1)
          addObservation(store, { sessionId: i < 3 ? 'narrow' : `s${i % 40}`, title: `release packaging ${i}`, createdAt: T0 + i * 1000 });
      })();
      const bySession = planForget(store.db, { observationIds: [], match: 'release packaging', sessionId: 'narrow' });
      expect(bySession.items.map((i) => i.title)).toEqual(['release packaging 0', 'release packaging 1', 'release packaging 2']);
      const before = planForget(store.db, { observationIds: [], match: 'release packaging', beforeMs: T0 + 5 * 1000 });
      expect(before.items).toHaveLength(5);
      expect(() => planForget(store.db, { observationIds: [], match: 'release packaging' })).toThrow(ForgetRefusedError);
      expect(() => planForget(store.db, { observationIds: [], match: 'release packaging', beforeMs: T0 + 2_000_000 })).toThrow(/narrow it/);
    } finally {
      store.close();
      temp.cleanup();
    }
  });
});
