import { describe, expect, it } from 'vitest';
import { openCollectorStore } from '../../../src/fleet/collector/index.js';
import { queryTilesDirect, simulateFleet } from '../../../src/fleet/dashboards/index.js';
import { localReviewSource, REVIEW_SUMS_TILE, runReview } from '../../../src/fleet/review/index.js';
import { compareTileResults } from '../../support/tile-compare.js';

const NOW = Date.UTC(2026, 7, 19, 12);

describe('the release review sums kept at ingest', () => {
  it('equal the plain compiled SQL over the raw events, cell for cell', () => {
    const store = openCollectorStore(':memory:');
    const fleet = simulateFleet({ seed: 12, installs: 40, nowMs: NOW });
    for (let i = 0; i < fleet.length; i += 400) store.insert(fleet.slice(i, i + 400));
    const comparison = compareTileResults(store.review.read(), queryTilesDirect(store.db, [REVIEW_SUMS_TILE]));
    expect(comparison.shape_mismatches).toEqual([]);
    expect(comparison.identical).toBe(comparison.cells);
    expect(comparison.cells).toBeGreaterThan(40 * 2 * REVIEW_SUMS_TILE.measures.length);
    store.close();
  });

  it('hold one row per install and version, so a review reads installs, not events', async () => {
    const store = openCollectorStore(':memory:');
    const fleet = simulateFleet({ seed: 2, installs: 30, nowMs: NOW });
    store.insert(fleet);
    const installsAndVersions = new Set(fleet.map((e) => `${e.distinctId} ${String(e.properties.app_version ?? e.properties.$app_version)}`));
    expect(store.review.read()[0]!.rows).toHaveLength(installsAndVersions.size);
    const source = localReviewSource(store.db, store.review, 'memory');
    const versions = await source.versions();
    expect(versions.map((v) => v.version).sort()).toEqual(['0.1.0', '0.2.0', '13.5.2', '13.6.0']);
    expect(versions.find((v) => v.version === '13.6.0')!.memtraceEvents).toBe(0);
    store.close();
  });

  it('count a re-sent event once', async () => {
    const store = openCollectorStore(':memory:');
    const fleet = simulateFleet({ seed: 6, installs: 30, nowMs: NOW });
    store.insert(fleet);
    const source = localReviewSource(store.db, store.review, 'memory');
    const first = await runReview(source, '0.1.0', '0.2.0');
    store.insert(fleet.slice(0, 5_000));
    expect(await runReview(source, '0.1.0', '0.2.0')).toEqual(first);
    store.close();
  });
});
