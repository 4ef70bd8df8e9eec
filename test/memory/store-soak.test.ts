import { afterEach, describe, expect, it } from 'vitest';
import { runStoreSoak } from '../support/store-soak.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * The soak's bound at a smaller size (the bench runs 100,000 events): with retention, no raw data
 * older than MEMTRACE_RAW_RETENTION_DAYS is left, every observation is, and the file stays
 * within MEMTRACE_MAX_DB_MB however many events arrive unobserved.
 */
describe('a store soak with retention', () => {
  const temps: Array<ReturnType<typeof makeTempDir>> = [];
  afterEach(() => {
    for (const t of temps.splice(0)) t.cleanup();
  });
  const dir = () => {
    const t = makeTempDir();
    temps.push(t);
    return t.dir;
  };

  it('keeps raw data of the last N days only, every observation, and a smaller file than without it', async () => {
    const without = await runStoreSoak({ dir: dir(), events: 3_000, days: 90, observed: true, retention: null });
    const within = await runStoreSoak({ dir: dir(), events: 3_000, days: 90, observed: true, retention: { rawRetentionDays: 30, maxDbMb: 2048 } });
    expect(within.observations).toBe(without.observations);
    expect(within.oldestRawAgeDays!).toBeLessThanOrEqual(31);
    expect(without.oldestRawAgeDays!).toBeGreaterThan(89);
    expect(within.toolEvents).toBeLessThan(without.toolEvents / 2);
    expect(within.fileBytes).toBeLessThan(without.fileBytes);
  });

  it('stays within MEMTRACE_MAX_DB_MB when nothing is observed, dropping the oldest waiting events first', async () => {
    const unbounded = await runStoreSoak({ dir: dir(), events: 2_000, days: 10, observed: false, retention: null });
    const bounded = await runStoreSoak({ dir: dir(), events: 2_000, days: 10, observed: false, retention: { rawRetentionDays: 30, maxDbMb: 4 } });
    expect(unbounded.fileBytes).toBeGreaterThan(8 * 1024 * 1024);
    expect(bounded.fileBytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(bounded.queued).toBeGreaterThan(0);
    expect(bounded.queued).toBeLessThan(unbounded.queued);
  });
});
