import type { TileResult } from '../../src/fleet/dashboards/index.js';

export interface TileComparison {
  cells: number;
  /** Cells equal to the last bit (or both null / the same string). */
  identical: number;
  /** Largest |a − b| / max(|a|, |b|) over the cells that differ; 0 when none does. */
  max_relative_difference: number;
  /** Cells where both sides are whole numbers below 2^40 (counts) and differ: counts must be equal exactly. */
  count_mismatches: number;
  /** Tiles whose row count or column order differ (none when the results match). */
  shape_mismatches: string[];
  /** The first few differing cells, to say where. */
  examples: string[];
}

/** Compares two computations of the same tiles cell by cell. */
export function compareTileResults(a: readonly TileResult[], b: readonly TileResult[]): TileComparison {
  const out: TileComparison = { cells: 0, identical: 0, max_relative_difference: 0, count_mismatches: 0, shape_mismatches: [], examples: [] };
  if (a.length !== b.length) out.shape_mismatches.push(`${a.length} tiles vs ${b.length}`);
  a.forEach((ra, i) => {
    const rb = b[i];
    if (!rb || rb.tile.id !== ra.tile.id || rb.rows.length !== ra.rows.length || rb.columns.join() !== ra.columns.join()) {
      out.shape_mismatches.push(ra.tile.id);
      return;
    }
    ra.rows.forEach((row, r) => {
      for (const column of ra.columns) {
        out.cells += 1;
        const x = row[column];
        const y = rb.rows[r]![column];
        if (x === y || (Number.isNaN(x) && Number.isNaN(y))) {
          out.identical += 1;
          continue;
        }
        if (out.examples.length < 5) out.examples.push(`${ra.tile.id} row ${r} ${column}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
        if (typeof x === 'number' && typeof y === 'number') {
          out.max_relative_difference = Math.max(out.max_relative_difference, Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y)));
          if (Number.isInteger(x) && Number.isInteger(y) && Math.abs(x) < 2 ** 40 && Math.abs(y) < 2 ** 40) {
            out.count_mismatches += 1;
            out.examples.unshift(`count ${ra.tile.id} row ${r} ${column}: ${x} vs ${y}`);
          }
        } else out.max_relative_difference = Number.POSITIVE_INFINITY;
      }
    });
  });
  return out;
}
