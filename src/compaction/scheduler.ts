import type Database from 'better-sqlite3';
import type { Timers } from '../timers.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { estimateTokens } from '../context/token-estimate.js';
import type { ObserverProvider } from '../providers/types.js';
import { createCompactionStore } from './compaction-store.js';
import type { CompactionConfig } from './config.js';
import { countStep, type CompactionCounters } from './counters.js';
import { compactionStep, type StepResult } from './step.js';
import { createSummarizer } from './summarizer.js';

export type { Timers as CompactionTimers } from '../timers.js';

export interface CompactionDeps {
  db: Database.Database;
  provider: Pick<ObserverProvider, 'name' | 'complete'>;
  clock: Clock;
  timers: Timers;
  log: Logger;
  recordCounters?: (event: string, dims: Readonly<Record<string, string>>, increments: Readonly<Record<string, number>>, nowMs: number) => void;
}

export interface PassReport {
  projects: number;
  steps: StepResult[];
}

export interface CompactionHandle {
  /** One pass over every project now (tests and `runNow` callers); never throws. */
  runPass(): Promise<PassReport>;
  /**
   * Stops the timer, aborts an in-flight summarizer call and waits for the pass to end. With
   * `graceMs` (a hand-over) the call in flight gets that long to finish first, so it is not paid
   * for again by the next worker.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/** Provider trouble affects every project: stop the pass rather than fail each one in turn. */
const PROVIDER_WIDE = new Set(['auth', 'quota', 'rate_limit', 'overloaded', 'transport']);

/**
 * The background compactor. Timers are unref'd, a pass never throws, and no request ever waits
 * on it: the summarizer is an async HTTP call and each database step is a short, bounded read or
 * one small transaction.
 */
export function startCompaction(config: CompactionConfig, deps: CompactionDeps): CompactionHandle {
  const store = createCompactionStore(deps.db);
  const summarize = createSummarizer(deps.provider, estimateTokens);
  const abort = new AbortController();
  let timer: { cancel(): void } | null = null;
  let running: Promise<PassReport> | null = null;
  let stopped = false;

  const pass = async (): Promise<PassReport> => {
    const report: PassReport = { projects: 0, steps: [] };
    const counters: CompactionCounters = {};
    try {
      outer: for (const project of store.projects()) {
        for (let i = 0; i < config.maxStepsPerProject && !stopped; i += 1) {
          const result = await compactionStep(config, { store, summarize, providerName: deps.provider.name }, project, {
            nowMs: deps.clock.now(),
            signal: abort.signal,
          });
          if (!(result.kind === 'idle' && result.reason === 'not_due')) {
            if (i === 0) report.projects += 1;
            report.steps.push(result);
            countStep(counters, result);
          }
          if (result.kind === 'skipped' && PROVIDER_WIDE.has(result.reason)) {
            deps.log.warn('compaction skipped: the provider failed; nothing written, retry scheduled', { reason: result.reason });
            break outer;
          }
          if (result.kind !== 'created') break;
        }
        if (stopped) break;
      }
    } catch (error) {
      deps.log.warn('compaction pass failed', { error: error instanceof Error ? error.message : String(error) });
    }
    if (report.projects > 0) counters.passes = 1;
    if (Object.keys(counters).length > 0) {
      try {
        deps.recordCounters?.('compaction_rollup', { origin: 'background' }, counters, deps.clock.now());
      } catch (error) {
        deps.log.warn('compaction telemetry failed', { error: String(error) });
      }
    }
    return report;
  };

  const runPass = (): Promise<PassReport> => {
    if (stopped) return Promise.resolve({ projects: 0, steps: [] });
    running ??= pass().finally(() => {
      running = null;
    });
    return running;
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = deps.timers.setTimeout(() => {
      timer = null;
      void runPass().then(() => schedule(config.tickMs));
    }, ms);
  };

  if (config.budgetTokens > 0) schedule(config.initialDelayMs);
  else deps.log.info('compaction is off (MEMTRACE_COMPACTION_BUDGET_TOKENS=0)');

  return {
    runPass,
    async stop(options = {}) {
      stopped = true;
      timer?.cancel();
      timer = null;
      if (running && options.graceMs) {
        let expire: { cancel(): void } | null = null;
        const grace = new Promise<void>((resolve) => {
          expire = deps.timers.setTimeout(resolve, options.graceMs!);
        });
        await Promise.race([running.catch(() => undefined), grace]);
        (expire as { cancel(): void } | null)?.cancel();
      }
      abort.abort();
      await running?.catch(() => undefined);
    },
  };
}
