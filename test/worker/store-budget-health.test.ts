import { afterEach, describe, expect, it } from 'vitest';
import { describeStore } from '../../src/cli/commands/worker-control.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

describe('the store against its budget in /health and worker status', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('reports the store over budget, and what retention removed, when observations alone exceed it', async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"error":{"status":401}}'] }), {
      env: { MEMTRACE_TELEMETRY: '0', MEMTRACE_MAX_DB_MB: '1' },
      retention: { firstDelayMs: 3_600_000, intervalMs: 3_600_000 },
    });
    const insert = h.worker.store.db.transaction(() => {
      for (let i = 0; i < 400; i += 1) {
        h!.worker.store.observations.insert(
          { type: 'discovery', title: `t${i}`, subtitle: '', narrative: 'n'.repeat(4_000), facts: [], concepts: [], files_read: [], files_modified: [] },
          {
            sessionId: 's',
            project: '/p',
            sourceMessageIds: [],
            provider: 'replay',
            model: null,
            promptVersion: 'obs-v1',
            discoveryTokens: null,
            createdAt: i,
          },
        );
      }
    });
    insert();
    const report = await h.worker.retention.runNow();
    expect(report?.overBudget).toBe(true);
    const health = JSON.parse((await h.get('/health')).text) as {
      status: string;
      degraded: Array<{ reason: string }>;
      store: Parameters<typeof describeStore>[0];
    };
    expect(health.status).toBe('degraded');
    expect(health.degraded.map((d) => d.reason)).toContain('store_over_budget');
    expect(health.store).toMatchObject({
      over_budget: true,
      budget_bytes: 1024 * 1024,
      last_retention: { removed: { tool_events: 0, unprocessed_dropped: 0 } },
    });
    const lines = describeStore(health.store);
    expect(lines[0]).toContain('OVER BUDGET: no raw data left to prune; observations are kept');
    expect(lines[1]).toMatch(/^ {2}retention {4}last pass \d{4}-\d\d-\d\dT.*: removed 0 tool event\(s\), 0 prompt\(s\)/);
    expect(h.worker.store.db.prepare('SELECT count(*) AS n FROM observations').get()).toEqual({ n: 400 });
  });
});
