import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/log.js';
import { openStore, sqliteDriver } from '../../src/store/index.js';
import { openWorkerStore } from '../../src/worker/worker-store.js';
import { queuedToolUse } from '../support/queued-events.js';
import { makeTempDir } from '../support/temp-dir.js';

describe("the worker's store", () => {
  let temp: ReturnType<typeof makeTempDir>;
  beforeEach(() => {
    temp = makeTempDir();
  });
  afterEach(() => temp.cleanup());

  it('gives back to pending what a crashed worker had claimed, and says how many', async () => {
    const file = path.join(temp.dir, 'crashed.db');
    const before = openStore(file);
    before.queue.enqueue({ sessionId: 's1', kind: 'observation', toolUseId: 'tu1', payload: queuedToolUse('s1'), nowMs: 1_000 });
    expect(before.queue.claimNext('s1', 2_000)).not.toBeNull();
    before.close(); // the worker dies before it confirms

    const log = createMemoryLogger();
    const { store, checkpointer } = openWorkerStore({ dbFile: file }, log);
    try {
      expect(store.queue.claimNext('s1', 3_000)?.toolUseId).toBe('tu1');
      expect(log.records).toContainEqual(expect.objectContaining({ level: 'warn', fields: { count: 1 } }));
    } finally {
      await checkpointer.stop();
      store.close();
    }
  });

  it('converts a file written before incremental vacuum once, so retention can return freed space', async () => {
    const file = path.join(temp.dir, 'old.db');
    const old = new (sqliteDriver())(file);
    old.exec('CREATE TABLE before_memtrace_managed_it (x)');
    old.close();

    const log = createMemoryLogger();
    const { store, checkpointer } = openWorkerStore({ dbFile: file }, log);
    try {
      expect(store.db.pragma('auto_vacuum', { simple: true })).toBe(2);
      expect(log.records.map((r) => r.message)).toContain('the store was rewritten once so retention can return freed space (auto_vacuum=INCREMENTAL)');
    } finally {
      await checkpointer.stop();
      store.close();
    }
  });
});
