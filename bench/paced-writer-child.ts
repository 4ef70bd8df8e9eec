/**
 * A bulk writer beside a running worker, in a process of its own (bench/memory-scale-paths.ts):
 * what `memtrace forget --match … --project … --yes` and `memtrace import <file>` do — the same
 * library calls, the same rest between transactions as when the CLI finds a worker running
 * (src/store/write-pacing.ts) — and, besides, how long each transaction held the store's write
 * lock (the time each rest is given): the load-independent cause of any wait a hook sees.
 * Prints JSON.
 *
 *   node --import tsx bench/paced-writer-child.ts forget <data-dir> <match> <project>
 *   node --import tsx bench/paced-writer-child.ts import <data-dir> <file.jsonl>
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { applyForget, importJsonl, planForget } from '../src/memory/index.js';
import { redactTextInto, type RedactionCounts } from '../src/redaction/index.js';
import { openStore, restBesideWorker } from '../src/store/index.js';
import { summarize } from './stats.js';

const [mode, dataDir, ...rest_] = process.argv.slice(2);
const store = openStore(path.join(dataDir!, 'memtrace.db'));
const holds: number[] = [];
const paced = restBesideWorker(true, (ms) => new Promise((resolve) => setTimeout(resolve, ms)));
const rest = (heldMs: number) => {
  holds.push(heldMs);
  return paced(heldMs);
};
const elapsedMs = () => performance.now();
try {
  const started = performance.now();
  let report: unknown;
  if (mode === 'forget') {
    const [match, project] = rest_;
    const plan = planForget(store.db, { observationIds: [], project: project ?? null, match: match ?? null });
    report = { items: plan.items.length, compacted: plan.compactedSummaries.length, ...(await applyForget(store.db, plan, { elapsedMs, rest })) };
  } else if (mode === 'import') {
    const counts: RedactionCounts = {};
    const lines = readline.createInterface({ input: fs.createReadStream(rest_[0]!), crlfDelay: Infinity });
    const { problems: _, ...counted } = await importJsonl(store, lines, {
      sanitize: (text) => redactTextInto(text, counts),
      nowMs: Date.now(),
      elapsedMs,
      rest,
    });
    report = counted;
  } else throw new Error(`unknown mode ${mode}`);
  const ms = performance.now() - started;
  const held = holds.reduce((a, b) => a + b, 0);
  process.stdout.write(
    `${JSON.stringify({
      report,
      ms: Math.round(ms),
      transactions: holds.length,
      transaction_ms: summarize(holds),
      held_share: +(held / ms).toFixed(2),
    })}\n`,
  );
} finally {
  store.close();
}
