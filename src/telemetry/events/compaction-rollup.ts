import { count, windowStart, type EventSpec } from '../field-types.js';

/** Where compaction work ran: the worker's background scheduler, or `memtrace repair apply` on memtrace's store or a lossless-claw file. */
export const COMPACTION_ORIGINS = ['background', 'repair_memtrace', 'repair_lcm'] as const;
export type CompactionOrigin = (typeof COMPACTION_ORIGINS)[number];

/** Why a step or a repair wrote nothing: a provider error class, or what was wrong with the answer. */
export const COMPACTION_SKIP_REASONS = [
  'auth',
  'quota',
  'rate_limit',
  'overloaded',
  'transport',
  'bad_request',
  'empty',
  'did_not_shrink',
  'marker',
  'observer_markup',
  'prompt_echo',
  'nothing_to_compact',
  'stale',
  'source_unrepaired',
  'no_sources',
  'limit',
] as const;

export const COMPACTION_ROLLUP: EventSpec = {
  name: 'compaction_rollup',
  description: 'Summary compaction and repair: summaries created by kind and level, steps that wrote nothing by reason, fallback summaries repaired.',
  cadence: 'one per 5-minute window with compaction or repair activity, per origin',
  fields: [
    { key: 'origin', type: { kind: 'enum', values: COMPACTION_ORIGINS }, description: 'background (worker), repair_memtrace or repair_lcm' },
    count('passes', 'scheduler passes that looked at one or more projects (repair: runs of repair apply)'),
    count('leaves_normal', 'leaf summaries created at the normal level'),
    count('leaves_aggressive', 'leaf summaries created at the aggressive level (normal did not shrink)'),
    count('condensed_normal', 'condensed summaries created at the normal level'),
    count('condensed_aggressive', 'condensed summaries created at the aggressive level'),
    ...COMPACTION_SKIP_REASONS.map((r) => count(`skipped_${r}`, `steps or repairs that wrote nothing: ${r.replace(/_/g, ' ')}`)),
    count('repaired', 'fallback summaries re-summarized and rewritten'),
    count('repair_failed', 'fallback summaries whose re-summarization was rejected or failed'),
    windowStart,
  ],
};
