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
