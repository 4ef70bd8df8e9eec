/**
 * Sums kept at ingest are stepped exactly as SQLite's sum() steps them, so they equal the plain
 * compiled SQL to the last bit (tile-store.ts).
 */
/** A compensated running sum, stepped exactly as SQLite's sum() steps (Kahan–Babuška–Neumaier). */
export interface CompensatedSum {
  s: number;
  c: number;
}

export function addCompensated(acc: CompensatedSum, r: number): void {
  const s = acc.s;
  const t = s + r;
  if (Math.abs(s) > Math.abs(r)) acc.c += s - t + r;
  else acc.c += r - t + s;
  acc.s = t;
}

/** A kept pair's value, as SQLite's sum() finishes (compensatedValue in compile-sqlite.ts): s + c unless c overflowed or is unknown. */
export function compensatedTotal(sum: CompensatedSum): number {
  return Math.abs(sum.c) <= Number.MAX_VALUE ? sum.s + sum.c : sum.s;
}
