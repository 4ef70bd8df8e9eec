export type Verdict = 'better' | 'worse' | 'no_change' | 'insufficient_data';

/**
 * Fewer installs than this on either version and the review says `insufficient_data`: the
 * interval is built from the spread between installs, and a spread of a handful is not a
 * spread anyone should ship on (the delta method is a large-sample approximation).
 */
export const MIN_INSTALLS = 10;

export interface Interval {
  value: number | null;
  low: number | null;
  high: number | null;
}

/**
 * `better` or `worse` only when the difference's interval excludes 0, in the direction the
 * measure calls better; an interval that holds 0 is `no_change` (no change this review can see —
 * `min_detectable` says how large a change it could have seen).
 */
export function verdictFor(input: { baselineInstalls: number; candidateInstalls: number; difference: Interval; better: 'lower' | 'higher' }): Verdict {
  const { difference: d } = input;
  if (input.baselineInstalls < MIN_INSTALLS || input.candidateInstalls < MIN_INSTALLS) return 'insufficient_data';
  if (d.value === null || d.low === null || d.high === null) return 'insufficient_data';
  if (d.low <= 0 && d.high >= 0) return 'no_change';
  const rose = d.low > 0;
  return rose === (input.better === 'higher') ? 'better' : 'worse';
}
