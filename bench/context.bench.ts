import path from 'node:path';
import { buildContext, createContextQuery } from '../src/context/index.js';
import { openStore } from '../src/store/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { insertLoginObservation } from './login-observations.js';
import { summarize } from './stats.js';

export const name = 'context';

/** Context injection latency with 100,000 stored observations in the project (plus other projects' noise). */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-bench-');
  const store = openStore(path.join(temp.dir, 'memtrace.db'));
  try {
    const now = Date.UTC(2026, 10, 23);
    const insert = store.db.transaction((count: number, project: string) => {
      for (let i = 0; i < count; i += 1) {
        insertLoginObservation(store, i, { project, sessionId: `s${i % 500}`, now });
      }
    });
    const seedStarted = performance.now();
    insert(100_000, 'big-project');
    insert(20_000, 'other-project');
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const query = createContextQuery(store.db);
    for (let i = 0; i < 50; i += 1) buildContext(query, { project: 'big-project', budgetTokens: 2_000, nowMs: now });
    const samples: number[] = [];
    let injected = 0;
    for (let i = 0; i < 500; i += 1) {
      const started = performance.now();
      injected = buildContext(query, { project: 'big-project', budgetTokens: 2_000, nowMs: now }).observationsInjected;
      samples.push(performance.now() - started);
    }
    return {
      observations_in_project: 100_000,
      other_rows: 20_000,
      seed_s: +seedSeconds.toFixed(1),
      budget_tokens: 2_000,
      observations_injected: injected,
      latency: summarize(samples),
      target_p95_ms: 25,
    };
  } finally {
    store.close();
    temp.cleanup();
  }
}
