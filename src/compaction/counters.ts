import type { StepResult } from './step.js';

/** Increments for one compaction_rollup window (field names from events/compaction-rollup.ts). */
export type CompactionCounters = Record<string, number>;

function bump(counters: CompactionCounters, key: string, by = 1): void {
  counters[key] = (counters[key] ?? 0) + by;
}

/** Folds one step into counters. Pure. Shutdown aborts are not counted: nothing happened. */
export function countStep(counters: CompactionCounters, step: StepResult): void {
  if (step.kind === 'created') bump(counters, `${step.summaryKind === 'leaf' ? 'leaves' : 'condensed'}_${step.level}`);
  else if (step.kind === 'skipped' && step.reason !== 'aborted') bump(counters, `skipped_${step.reason}`);
  else if (step.kind === 'idle' && step.reason === 'nothing_to_compact') bump(counters, 'skipped_nothing_to_compact');
}
