import { describe, expect, it } from 'vitest';
import { simulateFleet } from '../../src/fleet/dashboards/index.js';

/**
 * Bug (merge of issue 34): the shared-memory tile came with share_rollup, but the simulated fleet
 * never sent one, so the demo, the dashboard and the tile checks drew that tile empty.
 */
describe('the simulated fleet', () => {
  it('sends share_rollup from sharing installs only, with pulls spread over the lag buckets', () => {
    const events = simulateFleet({ seed: 5, installs: 40, weeks: 6 });
    const shares = events.filter((e) => e.event === 'share_rollup');
    expect(shares.length).toBeGreaterThan(0);
    const sharing = new Set(shares.map((e) => e.distinctId));
    const installs = new Set(events.map((e) => e.distinctId));
    expect(sharing.size).toBeLessThan(installs.size);
    for (const e of shares) {
      const p = e.properties as Record<string, number>;
      const lag = Object.entries(p)
        .filter(([k]) => k.startsWith('lag_ms_'))
        .reduce((a, [, v]) => a + v, 0);
      expect(lag).toBe(p.records_pulled);
    }
  });
});
