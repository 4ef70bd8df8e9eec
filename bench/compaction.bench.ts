import path from 'node:path';
import { createCompactionStore, DEFAULT_COMPACTION_CONFIG, planCompaction, startCompaction } from '../src/compaction/index.js';
import { buildContext, createContextQuery } from '../src/context/index.js';
import { silentLogger } from '../src/log.js';
import { createAnthropicProvider } from '../src/providers/index.js';
import { openStore } from '../src/store/index.js';
import { startFakeLlm } from '../test/support/fake-llm.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { insertLoginObservation } from './login-observations.js';
import { summarize } from './stats.js';

export const name = 'compaction';

/**
 * A project with 100,000 observations (plus another project's 20,000): compaction planning time
 * (store read + plan) before and after the DAG is built, and context injection p95 without the
 * DAG and with it, measured in the same run. The DAG is built by the real scheduler against the
 * fake provider over loopback HTTP.
 */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-bench-');
  const store = openStore(path.join(temp.dir, 'memtrace.db'));
  const llm = await startFakeLlm('anthropic', { kind: 'text', text: 'Condensed: the login flow changed in src/file*.ts; decisions and fixes kept.' });
  try {
    const now = Date.UTC(2026, 10, 23);
    const count = 100_000;
    const insert = store.db.transaction((n: number, project: string) => {
      store.sessions.init({ sessionId: `s-${project}`, project, nowMs: now - n * 60_000 });
      for (let i = n - 1; i >= 0; i -= 1) {
        insertLoginObservation(store, i, { project, sessionId: `s-${project}`, now });
      }
    });
    insert(count, 'big-project');
    insert(20_000, 'other-project');

    const config = { ...DEFAULT_COMPACTION_CONFIG, maxStepsPerProject: 1_000_000 };
    const compactionStore = createCompactionStore(store.db);
    const plan = () => planCompaction(compactionStore.snapshot('big-project', config), config);
    const timePlanning = () => {
      for (let i = 0; i < 20; i += 1) plan();
      const samples: number[] = [];
      for (let i = 0; i < 200; i += 1) {
        const started = performance.now();
        plan();
        samples.push(performance.now() - started);
      }
      return summarize(samples);
    };
    const query = createContextQuery(store.db);
    const timeInjection = () => {
      for (let i = 0; i < 50; i += 1) buildContext(query, { project: 'big-project', budgetTokens: 2_000, nowMs: now });
      const samples: number[] = [];
      let last = buildContext(query, { project: 'big-project', budgetTokens: 2_000, nowMs: now });
      for (let i = 0; i < 500; i += 1) {
        const started = performance.now();
        last = buildContext(query, { project: 'big-project', budgetTokens: 2_000, nowMs: now });
        samples.push(performance.now() - started);
      }
      return {
        latency: summarize(samples),
        observations_injected: last.observationsInjected,
        summaries_injected: last.summariesInjected,
        tokens: last.tokensInjected,
      };
    };

    const planningFresh = timePlanning();
    const injectionWithout = timeInjection();

    const clock = { now: () => now };
    const compaction = startCompaction(config, {
      db: store.db,
      provider: createAnthropicProvider({ apiKey: 'bench', baseUrl: llm.url }),
      clock,
      timers: { setTimeout: () => ({ cancel() {} }) },
      log: silentLogger,
    });
    const buildStarted = performance.now();
    let steps = 0;
    for (;;) {
      const report = await compaction.runPass();
      const created = report.steps.filter((s) => s.kind === 'created').length;
      steps += created;
      if (created === 0) break;
    }
    const buildSeconds = (performance.now() - buildStarted) / 1000;
    await compaction.stop();
    const dag = store.db
      .prepare(
        "SELECT sum(kind = 'leaf') AS leaves, sum(kind = 'condensed') AS condensed, max(depth) AS max_depth, sum(condensed_into IS NULL) AS top FROM memory_summaries WHERE project = 'big-project'",
      )
      .get() as Record<string, number>;

    const planningSteady = timePlanning();
    const injectionWith = timeInjection();
    return {
      observations_in_project: count,
      other_rows: 20_000,
      budget_tokens: config.budgetTokens,
      planning_no_dag: planningFresh,
      planning_with_dag: planningSteady,
      dag: { ...dag, summarizer_calls: llm.requests.length, created: steps, build_s: +buildSeconds.toFixed(1) },
      injection_without_dag: injectionWithout,
      injection_with_dag: injectionWith,
      injection_p95_ratio_with_vs_without: +(injectionWith.latency.p95_ms / injectionWithout.latency.p95_ms).toFixed(2),
    };
  } finally {
    await llm.close();
    store.close();
    temp.cleanup();
  }
}
