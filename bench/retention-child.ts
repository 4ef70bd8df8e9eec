/**
 * One retention pass over a data dir, in a process of its own (bench/memory-scale-paths.ts): the
 * worker's pass as it runs (the same batches, the same pauses between them), with "now" a day
 * after the store's newest tool event, so what is older than the default 30 days goes. Prints
 * the pass's report as JSON.
 */
import path from 'node:path';
import { DAY_MS, DEFAULT_RETENTION_BATCH, runRetentionPass } from '../src/memory/retention.js';
import { createRawData, openStore } from '../src/store/index.js';

const dataDir = process.argv[2]!;
const store = openStore(path.join(dataDir, 'memtrace.db'));
try {
  // The store's own newest memory, not the bench's probe hooks (stored just now).
  const newest = Number(store.db.prepare('SELECT max(created_at) FROM observations').pluck().get() ?? Date.now());
  const report = await runRetentionPass(
    { rawRetentionDays: 30, maxDbBytes: Number.MAX_SAFE_INTEGER, batch: DEFAULT_RETENTION_BATCH },
    { raw: createRawData(store.db), pruneSpool: () => 0, pause: () => new Promise((resolve) => setImmediate(resolve)) },
    newest + DAY_MS,
  );
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  store.close();
}
