/** Standard normal quantiles the review uses: a two-sided 95 % interval and 80 % power. */
export const Z_975 = 1.959963984540054;
export const Z_80 = 0.8416212335729143;

/**
 * The Student t quantile for `df` degrees of freedom from the normal quantile `z` at the same
 * probability, by the Cornish–Fisher expansion (Abramowitz & Stegun 26.7.5). With df ≥ 4 it is
 * within 0.001 of the exact value for the quantiles used here (t₀.₉₇₅ with 4 df: 2.776).
 * Few installs mean few degrees of freedom, so a small fleet gets the wider interval it deserves.
 */
export function tQuantile(z: number, df: number): number {
  if (!(df >= 1)) throw new RangeError(`t quantile needs at least 1 degree of freedom, got ${df}`);
  if (!Number.isFinite(df)) return z;
  const z2 = z * z;
  const g1 = (z * (z2 + 1)) / 4;
  const g2 = (z * (5 * z2 * z2 + 16 * z2 + 3)) / 96;
  const g3 = (z * (3 * z2 ** 3 + 19 * z2 * z2 + 17 * z2 - 15)) / 384;
  const g4 = (z * (79 * z2 ** 4 + 776 * z2 ** 3 + 1482 * z2 * z2 - 1920 * z2 - 945)) / 92160;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
}
