/**
 * Regression: a raw hook payload stayed readable in memtrace.db after its queue row was confirmed
 * (deleted): SQLite leaves a deleted row's bytes in free space unless `secure_delete` is on. So
 * `memtrace forget` could remove an observation and still leave the tool output it came from in
 * the file. Every connection now runs with secure_delete.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { queuedToolUse } from '../support/queued-events.js';

describe('a confirmed queue message', () => {
  it('leaves none of its payload bytes in the database file after a checkpoint', () => {
    const temp = makeTempDir('memtrace-secure-delete-');
    try {
      const file = path.join(temp.dir, 'memtrace.db');
      const store = openStore(file);
      expect(store.db.pragma('secure_delete', { simple: true })).toBe(1);
      const marker = 'qzxwvkjp'.repeat(4);
      // Large enough to spill into overflow pages, as real tool output does.
      const payload = queuedToolUse('s', { tool_name: 'Bash', tool_input: { command: 'cat secrets' }, tool_response: { stdout: `${marker}\n`.repeat(2_000) } });
      const { id } = store.queue.enqueue({ sessionId: 's', kind: 'observation', toolUseId: 't1', payload, nowMs: 1 });
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      expect(fs.readFileSync(file).includes(marker)).toBe(true);
      store.queue.claimNext('s', 1);
      expect(store.queue.confirm(id)).toBe(true);
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      expect(fs.readFileSync(file).includes(marker)).toBe(false);
      store.close();
    } finally {
      temp.cleanup();
    }
  });
});
