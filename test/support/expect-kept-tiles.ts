import { expect } from 'vitest';
import type { FleetStore } from '../../src/fleet/collector/fleet-store.js';
import { compareTileResults } from './tile-compare.js';

/** The tiles a store reads from what it keeps equal its plain query over the raw events. */
export async function expectKeptEqualsPlain(store: FleetStore): Promise<void> {
  const comparison = compareTileResults(await store.readTiles(), await store.queryTilesPlain());
  expect(comparison.shape_mismatches).toEqual([]);
  expect(comparison.count_mismatches, comparison.examples.join('\n')).toBe(0);
  expect(comparison.max_relative_difference).toBeLessThanOrEqual(1e-9);
}
