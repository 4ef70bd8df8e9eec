/**
 * One retention pass over a data dir, in a process of its own (bench/memory-scale-paths.ts): the
 * worker's pass as it runs (the same batches and steps), with "now" a day after the store's
 * newest observation, so what is older than the default 30 days goes. Inside the worker each
 * write blocks the event loop that serves hooks; here the longest one is reported, and between
 * writes the pass rests as long as the last one took (the worker's hooks get their turn at the
 * lock, as they get the event loop between the worker's own batches). Prints JSON.
 */
import path from 'node:path';
import { DAY_MS, DEFAULT_RETENTION_BATCH, runRetentionPass } from '../src/memory/retention.js';
import { createRawData, openStore } from '../src/store/index.js';

const dataDir = process.argv[2]!;
const store = openStore(path.join(dataDir, 'memtrace.db'));
try {
  // The store's own newest memory, not the bench's probe hooks (stored just now).
  const newest = Number(store.db.prepare('SELECT max(created_at) FROM observations').pluck().get() ?? Date.now());
  const raw = createRawData(store.db);
  let last = 0;
  let longest = 0;
  let writes = 0;
  const timed =
    <A extends unknown[], R>(f: (...a: A) => R) =>
    (...a: A): R => {
      const started = performance.now();
      try {
        return f(...a);
      } finally {
        last = performance.now() - started;
        longest = Math.max(longest, last);
        writes += 1;
      }
    };
  const report = await runRetentionPass(
    { rawRetentionDays: 30, maxDbBytes: Number.MAX_SAFE_INTEGER, batch: DEFAULT_RETENTION_BATCH },
    {
      raw: { ...raw, pruneProcessed: timed(raw.pruneProcessed), vacuumFreePages: timed(raw.vacuumFreePages) },
      pruneSpool: () => 0,
      pause: () => new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.ceil(last)))),
    },
    newest + DAY_MS,
  );
  process.stdout.write(`${JSON.stringify({ ...report, writes, longest_write_ms: Math.round(longest) })}\n`);
} finally {
  store.close();
}
