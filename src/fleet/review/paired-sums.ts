import { compareCodePoints } from '../dashboards/code-point-order.js';
import type { InstallSums } from './install-sums.js';
import type { VersionSums } from './ratio-of-sums.js';
import { REVIEW_MEASURES } from './review-measures.js';

/**
 * Both versions' sums per measure over one list of installs (every install that ran either),
 * in code-point order of the install id — SQLite's and ClickHouse's order for text — so the
 * statistics add the same numbers in the same order whichever source read them, and the same
 * rows give the same review to the last bit.
 */
export interface PairedSums {
  baseline: VersionSums[];
  candidate: VersionSums[];
  /** Installs with a row on each version (0: the source holds no events from it). */
  rows: { baseline: number; candidate: number };
}

/** Empty per-measure arrays for `n` installs. */
export function emptyVersionSums(n: number): VersionSums[] {
  return REVIEW_MEASURES.map(() => ({ num: new Float64Array(n), den: new Float64Array(n) }));
}

/** Per-install rows (any order; an install split across rows is summed back) → PairedSums. */
export function pairInstalls(rows: readonly InstallSums[], baseline: string, candidate: string): PairedSums {
  const installs = [...new Set(rows.filter((r) => r.version === baseline || r.version === candidate).map((r) => r.install))].sort(compareCodePoints);
  const index = new Map(installs.map((install, i) => [install, i]));
  const paired: PairedSums = { baseline: emptyVersionSums(installs.length), candidate: emptyVersionSums(installs.length), rows: { baseline: 0, candidate: 0 } };
  for (const row of rows) {
    const side = row.version === baseline ? 'baseline' : row.version === candidate ? 'candidate' : null;
    if (side === null) continue;
    paired.rows[side] += 1;
    const i = index.get(row.install)!;
    const sums = paired[side];
    for (let k = 0; k < sums.length; k += 1) {
      sums[k]!.num[i] = sums[k]!.num[i]! + row.num[k]!;
      sums[k]!.den[i] = sums[k]!.den[i]! + row.den[k]!;
    }
  }
  return paired;
}
