import { SHARE_FAILURE_CLASSES } from '../../vocabulary/share-failure.js';
import { count, windowStart, type EventSpec } from '../field-types.js';

/** Who ran the sync: the worker's background loop, or `memtrace share sync` / `share add` / `share remove`. */
const SHARE_TRIGGERS = ['worker', 'cli'] as const;

/**
 * Exclusive delivery-lag buckets (upper bounds in ms; the last is open): from the push's commit in
 * the shared database to the pull that stored the record here, on the database's clock.
 */
export const SHARE_LAG_BOUNDS_MS = [1_000, 5_000, 30_000, 300_000, 3_600_000] as const;
export const SHARE_LAG_BUCKETS = [...SHARE_LAG_BOUNDS_MS.map((b) => `lag_ms_le_${b}` as const), 'lag_ms_gt_3600000'] as const;
export type ShareLagBucket = (typeof SHARE_LAG_BUCKETS)[number];

export function shareLagBucket(lagMs: number): ShareLagBucket {
  for (const bound of SHARE_LAG_BOUNDS_MS) if (lagMs <= bound) return `lag_ms_le_${bound}`;
  return 'lag_ms_gt_3600000';
}

export const SHARE_ROLLUP: EventSpec = {
  name: 'share_rollup',
  description:
    'Shared memory through Postgres: records pushed and pulled, withdrawals, refused rows, failed syncs by typed class, delivery lag in fixed buckets. Counts only: never a URL, a project, a label or any text.',
  cadence: 'one per 5-minute window with sharing activity, per trigger',
  fields: [
    { key: 'trigger', type: { kind: 'enum', values: SHARE_TRIGGERS }, description: 'the worker’s background loop, or a share command' },
    count('syncs', 'syncs that reached the database and finished'),
    count('records_pushed', 'observations and session summaries pushed'),
    count('withdrawals_pushed', 'records of this machine withdrawn from the database (forgotten here)'),
    count('records_pulled', 'records of other machines stored here'),
    count('withdrawals_applied', 'pulled records removed here because their owner withdrew them'),
    count('records_refused', 'pulled rows refused as not being records'),
    count('failures', 'syncs that failed'),
    ...SHARE_FAILURE_CLASSES.map((c) => count(`failure_${c}`, `syncs that failed as ${c.replace(/_/g, ' ')}`)),
    ...SHARE_LAG_BUCKETS.map((b) =>
      count(
        b,
        b === 'lag_ms_gt_3600000'
          ? 'records delivered more than an hour after their push'
          : `records delivered within ${Number(b.slice(10)) / 1000} s of their push (and later than the bucket below)`,
      ),
    ),
    windowStart,
  ],
};
