import { medianPosition, RANKED_COLUMNS } from './tile-plan.js';
import type { TileResult } from './tile-result.js';

export interface RankedCounts {
  /** Groups ranked (the rows show their ends and median). */
  of: number;
  aboveZero: number;
  /** The position of the lower median, the one row of the middle a tile keeps. */
  medianPosition: number;
}

/** What a tile that keeps its ranked ends says about all its groups, or null for any other tile (or no rows). */
export function rankedCounts(result: TileResult): RankedCounts | null {
  const first = result.rows[0];
  if (!result.tile.keep || first === undefined) return null;
  const of = Number(first[RANKED_COLUMNS.of]);
  const aboveZero = Number(first[RANKED_COLUMNS.aboveZero]);
  if (!Number.isInteger(of) || !Number.isInteger(aboveZero)) return null;
  return { of, aboveZero, medianPosition: medianPosition(of) };
}
