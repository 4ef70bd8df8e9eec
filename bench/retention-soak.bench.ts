import { makeTempDir } from '../test/support/temp-dir.js';
import { runStoreSoak, type SoakResult } from '../test/support/store-soak.js';

export const name = 'retention-soak';

const MB = 1024 * 1024;
const view = (r: SoakResult) => ({
  file_mb: Math.round((r.fileBytes / MB) * 10) / 10,
  observations: r.observations,
  tool_events: r.toolEvents,
  queued: r.queued,
  oldest_raw_days: r.oldestRawAgeDays === null ? null : Math.round(r.oldestRawAgeDays * 10) / 10,
});

/**
 * 100,000 realistic tool events (1–8 kB) through the store over 90 days, with and without
 * retention (30 days, the default budget), observed (one observation per five events) or not
 * (no provider: every event waits in the queue), the last with a 64 MB budget.
 */
export async function run(): Promise<Record<string, unknown>> {
  const events = Number(process.env.MEMTRACE_SOAK_EVENTS ?? 100_000);
  const out: Record<string, unknown> = { events, days: 90 };
  const variants = {
    observed_without_retention: { observed: true, retention: null },
    observed_with_retention_30d: { observed: true, retention: { rawRetentionDays: 30, maxDbMb: 2048 } },
    unobserved_without_budget: { observed: false, retention: null },
    unobserved_with_budget_64mb: { observed: false, retention: { rawRetentionDays: 30, maxDbMb: 64 } },
  } as const;
  for (const [key, v] of Object.entries(variants)) {
    const temp = makeTempDir();
    try {
      const started = performance.now();
      out[key] = {
        ...view(await runStoreSoak({ dir: temp.dir, events, days: 90, observed: v.observed, retention: v.retention })),
        seconds: Math.round((performance.now() - started) / 100) / 10,
      };
    } finally {
      temp.cleanup();
    }
  }
  return out;
}
