import { tQuantile, Z_80, Z_975 } from './student-t.js';

/**
 * The smallest true difference (in the measure's own unit) this review would flag as better or
 * worse four times in five — a two-sided 5 % test at 80 % power — given the standard error of the
 * difference at the current fleet: (t₀.₉₇₅ + t₀.₈₀) · SE. A `no_change` with a large
 * minimum detectable effect means "too few installs to tell", not "no effect".
 */
export function minDetectableEffect(se: number, df: number): number {
  return (tQuantile(Z_975, df) + tQuantile(Z_80, df)) * se;
}
