import type { Clock } from '../../clock.js';
import type { Logger } from '../../log.js';
import type { Timers } from '../../timers.js';
import { runRetentionPass, type RetentionConfig, type RetentionPassDeps, type RetentionReport } from './retention-pass.js';

/**
 * Retention as a background task of the worker: a pass soon after start, then one every
 * interval. Timers come from `deps.timers` and time from `deps.clock`, so tests run days in
 * milliseconds. A failing pass is logged and tried again at the next interval; it never throws.
 */
export interface RetentionSchedule {
  firstDelayMs: number;
  intervalMs: number;
}

export const DEFAULT_RETENTION_SCHEDULE: RetentionSchedule = { firstDelayMs: 10_000, intervalMs: 10 * 60_000 };

export interface RetentionTaskDeps extends Omit<RetentionPassDeps, 'pause'> {
  clock: Clock;
  timers: Timers;
  log: Logger;
  pause?: () => Promise<void>;
  onReport?(report: RetentionReport): void;
}

export interface RetentionTask {
  last(): RetentionReport | null;
  /** Runs a pass now (or waits for the one under way) and returns its report. */
  runNow(): Promise<RetentionReport | null>;
  stop(): Promise<void>;
}

export function startRetention(config: RetentionConfig, schedule: RetentionSchedule, deps: RetentionTaskDeps): RetentionTask {
  const pause = deps.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  let last: RetentionReport | null = null;
  let running: Promise<RetentionReport | null> | null = null;
  let stopped = false;
  let timer: { cancel(): void } | null = null;

  const pass = (): Promise<RetentionReport | null> => {
    running ??= (async () => {
      try {
        const report = await runRetentionPass(config, { elapsedMs: () => performance.now(), ...deps, pause }, deps.clock.now());
        last = report;
        const removed = Object.values(report.removed).reduce((a, b) => a + b, 0);
        if (removed > 0 || report.overBudget)
          deps.log.info('retention pass', {
            ...report.removed,
            removed_for_budget: report.removedForBudget,
            bytes_before: report.bytesBefore,
            bytes_after: report.bytesAfter,
            over_budget: report.overBudget,
          });
        if (report.overBudget)
          deps.log.warn('the store is over MEMTRACE_MAX_DB_MB with no raw data left to prune; observations are kept', {
            bytes: report.bytesAfter,
            budget_bytes: report.budgetBytes,
          });
        deps.onReport?.(report);
        return report;
      } catch (error) {
        deps.log.warn('retention pass failed; tried again later', { error: String(error) });
        return null;
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const schedule_ = (ms: number) => {
    if (stopped) return;
    timer = deps.timers.setTimeout(() => {
      void pass().then(() => schedule_(schedule.intervalMs));
    }, ms);
  };
  schedule_(schedule.firstDelayMs);

  return {
    last: () => last,
    runNow: () => pass(),
    async stop() {
      stopped = true;
      timer?.cancel();
      await running;
    },
  };
}
