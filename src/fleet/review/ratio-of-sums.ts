/**
 * The delta method for a ratio of sums with the install as the unit of sampling.
 *
 * A version's value is R = ΣNᵢ / ΣDᵢ over its installs i (Nᵢ, Dᵢ: the install's sums of the
 * measure's numerator and denominator). Linearized, R − R₀ ≈ Σψᵢ with ψᵢ = (Nᵢ − R·Dᵢ) / ΣD, one
 * term per install, so its variance is estimated from the spread of those terms *between
 * installs*: Var(R) ≈ n/(n−1) · Σψᵢ². Turns of one install are never treated as independent —
 * an install that drops many turns moves its ψ, not n.
 *
 * The difference of two versions is linearized the same way over the installs that ran either
 * one: ψᵢ = ψᵢ(candidate) − ψᵢ(baseline), absent terms 0. An install that ran both versions
 * enters once, with both terms, which is what the covariance between the two values is.
 *
 * Both versions' sums come as arrays over one shared list of installs (0 where an install did
 * not run the version); an install whose two sums are 0 carries no information and is not counted.
 */
export interface VersionSums {
  num: Float64Array;
  den: Float64Array;
}

export interface RatioEstimate {
  /** ΣN / ΣD; null when ΣD is 0 (unknown, not 0). */
  value: number | null;
  /** Standard error; null with fewer than 2 installs or no value. */
  se: number | null;
  installs: number;
  /** Each install's linearized term ψᵢ (0 for installs that did not run the version). */
  influence: Float64Array;
}

export interface DifferenceEstimate {
  /** candidate − baseline; null when either value is. */
  value: number | null;
  se: number | null;
  /** Installs that ran either version. */
  installs: number;
}

const counts = (s: VersionSums, i: number) => s.num[i] !== 0 || s.den[i] !== 0;

export function ratioOfSums(s: VersionSums): RatioEstimate {
  const n = s.num.length;
  const influence = new Float64Array(n);
  let num = 0;
  let den = 0;
  let installs = 0;
  for (let i = 0; i < n; i += 1) {
    if (!counts(s, i)) continue;
    num += s.num[i]!;
    den += s.den[i]!;
    installs += 1;
  }
  if (den === 0) return { value: null, se: null, installs, influence };
  const value = num / den;
  let squares = 0;
  for (let i = 0; i < n; i += 1) {
    if (!counts(s, i)) continue;
    const psi = (s.num[i]! - value * s.den[i]!) / den;
    influence[i] = psi;
    squares += psi * psi;
  }
  return { value, se: installs < 2 ? null : Math.sqrt((installs / (installs - 1)) * squares), installs, influence };
}

export function differenceOfRatios(baseline: VersionSums, candidate: VersionSums, b: RatioEstimate, c: RatioEstimate): DifferenceEstimate {
  let union = 0;
  let squares = 0;
  for (let i = 0; i < b.influence.length; i += 1) {
    if (!counts(baseline, i) && !counts(candidate, i)) continue;
    union += 1;
    const psi = c.influence[i]! - b.influence[i]!;
    squares += psi * psi;
  }
  if (b.value === null || c.value === null) return { value: null, se: null, installs: union };
  return { value: c.value - b.value, se: union < 2 ? null : Math.sqrt((union / (union - 1)) * squares), installs: union };
}
