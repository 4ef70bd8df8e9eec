import { describe, expect, it } from 'vitest';
import { rankedCounts } from '../../../src/fleet/dashboards/ranked-counts.js';
import { tileRowsFromGroups } from '../../../src/fleet/dashboards/tile-measures.js';
import { keptPosition, planTile } from '../../../src/fleet/dashboards/tile-plan.js';
import { RANKED_TEST_TILE } from '../../support/ranked-test-tile.js';

const tile = RANKED_TEST_TILE;

const groups = (values: Record<string, number>) => Object.entries(values).map(([x, v]) => ({ x, series: '', sums: [v] }));

describe('a ranked tile that keeps its ends', () => {
  it('keeps the highest, the lowest and the lower median, ties broken by install, each row saying where it stands', () => {
    const rows = tileRowsFromGroups(planTile(tile), groups({ a: 5, b: -1, c: 3, d: 0, e: 7, f: 2, g: 2 }));
    // Descending: e 7, a 5, c 3, f 2, g 2, d 0, b -1; ascending the lower median is the 4th value (2), f before g.
    expect(rows).toEqual([
      { x: 'e', v: 7, ranked_position: 1, ranked_of: 7, ranked_above_zero: 5 },
      { x: 'f', v: 2, ranked_position: 4, ranked_of: 7, ranked_above_zero: 5 },
      { x: 'b', v: -1, ranked_position: 7, ranked_of: 7, ranked_above_zero: 5 },
    ]);
    expect(rankedCounts({ tile, columns: [], rows, ms: 0 })).toEqual({ of: 7, aboveZero: 5, medianPosition: 4 });
  });

  it('keeps every group when there are no more than the ends and the median', () => {
    const rows = tileRowsFromGroups(planTile(tile), groups({ a: 1, b: 2, c: 3 }));
    expect(rows.map((r) => [r.x, r.ranked_position])).toEqual([
      ['c', 1],
      ['b', 2],
      ['a', 3],
    ]);
    expect(tileRowsFromGroups(planTile(tile), [])).toEqual([]);
  });

  it('keeps the lower median of an even count', () => {
    // Four groups: ascending positions 4 3 2 1; the lower median is the 2nd ascending, position 3.
    expect([1, 2, 3, 4].filter((p) => keptPosition(p, 4, 1))).toEqual([1, 3, 4]);
    expect([1, 2, 3, 4, 5, 6].filter((p) => keptPosition(p, 6, 0 + 1))).toEqual([1, 4, 6]);
  });

  it('refuses a keep without an order, with a series or with a limit', () => {
    const { order: _order, ...unordered } = tile;
    expect(() => planTile(unordered)).toThrow(/keeps the ends of an order/);
    expect(() => planTile({ ...tile, limit: 3 })).toThrow(/without series or limit/);
    expect(() => planTile({ ...tile, keep: { ends: 0 } })).toThrow(/positive whole number/);
  });
});
