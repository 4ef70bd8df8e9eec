import { describe, expect, it } from 'vitest';
import { compileHogQL, TILES } from '../../src/fleet/dashboards/index.js';
import { POSTHOG_TILE_ROW_LIMIT } from '../../src/fleet/dashboards/compile-hogql.js';

// PostHog runs a SELECT without LIMIT with its default of 100 rows: a tile with more groups (a
// fleet's installs, weeks × versions) showed fewer rows on PostHog than in the local collector.
describe('every tile sent to PostHog', () => {
  it('says its LIMIT, so PostHog does not cut it at its default 100 rows', () => {
    for (const tile of TILES) {
      const limit = Number(/\nLIMIT (\d+)$/.exec(compileHogQL(tile).sql)?.[1]);
      expect(limit, tile.id).toBeGreaterThan(100);
      expect(limit, tile.id).toBeLessThanOrEqual(POSTHOG_TILE_ROW_LIMIT);
    }
  });

  it('keeps a ranked per-install tile to its ends and median, the same rows the local stores show', () => {
    const ranked = TILES.filter((t) => t.x === 'install');
    expect(ranked.length).toBeGreaterThan(0);
    for (const tile of ranked) {
      expect(tile.keep, tile.id).toBeDefined();
      expect(compileHogQL(tile).sql).toContain(`LIMIT ${2 * tile.keep!.ends + 1}`);
    }
  });
});
