/**
 * SQLite's reading of a JSON property, in JavaScript, so sums kept at ingest equal what the
 * compiled SQL computes from the stored JSON (`json_extract`, then `CAST … AS REAL|TEXT`).
 * The differential tests hold the two to each other on odd values as well as plain ones.
 */
export type SqlValue = number | string | null;

/** What `json_extract` yields for a property stored with JSON.stringify: numbers stay numbers, true/false become 1/0, objects their JSON text. */
export function sqlValueOf(value: unknown): SqlValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return JSON.stringify(value);
}

/** SQLite keeps a JSON integer as INTEGER while it fits 64 bits; anything else is REAL. */
function isSqlInteger(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < 9.223372036854775e18;
}

// SQLite's CAST(text AS REAL): leading spaces, then the longest decimal prefix; nothing numeric → 0.
const NUMERIC_PREFIX = /^[ \t\n\v\f\r]*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/;

export function castReal(v: SqlValue): number | null {
  if (v === null || typeof v === 'number') return v;
  const m = NUMERIC_PREFIX.exec(v);
  return m ? Number(m[1]) : 0;
}

/**
 * SQLite's CAST(value AS TEXT). A REAL is written by SQLite's own printf (e.g. `1.0e+21`), which
 * JavaScript does not reproduce, so that case asks the caller's `realText`; it never arises for
 * the string properties tiles read, only for odd input.
 */
export function castText(v: SqlValue, realText: (n: number) => string): string | null {
  if (v === null || typeof v === 'string') return v;
  return isSqlInteger(v) ? String(v === 0 ? 0 : v) : realText(v);
}

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
