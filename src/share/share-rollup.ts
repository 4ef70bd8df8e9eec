import { shareLagBucket } from '../telemetry/index.js';
import type { ShareFailureClass } from '../vocabulary/share-failure.js';
import type { SyncOutcome } from './sync.js';

/** share_rollup's counters for one finished sync (field names are the schema's; zeros left out). */
export function syncIncrements(outcome: SyncOutcome): Record<string, number> {
  const out: Record<string, number> = { syncs: 1 };
  const add = (key: string, n: number) => {
    if (n > 0) out[key] = (out[key] ?? 0) + n;
  };
  add('records_pushed', outcome.pushed);
  add('withdrawals_pushed', outcome.withdrawn);
  add('records_pulled', outcome.pulled);
  add('withdrawals_applied', outcome.removedByOwner);
  add('records_refused', outcome.refused);
  for (const lag of outcome.lagsMs) add(shareLagBucket(lag), 1);
  return out;
}

/** share_rollup's counters for one failed sync. */
export function failureIncrements(cls: ShareFailureClass): Record<string, number> {
  return { failures: 1, [`failure_${cls}`]: 1 };
}
