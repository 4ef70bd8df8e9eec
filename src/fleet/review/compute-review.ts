import type { InstallSums } from './install-sums.js';
import { minDetectableEffect } from './min-detectable.js';
import { pairInstalls, type PairedSums } from './paired-sums.js';
import { differenceOfRatios, ratioOfSums, type RatioEstimate } from './ratio-of-sums.js';
import { REVIEW_MEASURES, type ReviewMeasure } from './review-measures.js';
import { tQuantile, Z_975 } from './student-t.js';
import { MIN_INSTALLS, verdictFor, type Interval, type Verdict } from './verdict.js';

/** The shape of `dashboards review --json` (docs/interfaces.md#dashboards-review). */
export interface VersionValue extends Interval {
  installs: number;
}

export interface MeasureReview {
  id: string;
  baseline: VersionValue;
  candidate: VersionValue;
  /** candidate − baseline. */
  difference: Interval;
  verdict: Verdict;
  min_detectable: number | null;
}

export interface Review {
  baseline: string;
  candidate: string;
  measures: MeasureReview[];
}

const clip = (v: number, range: ReviewMeasure['range']) => Math.min(range.max ?? Infinity, Math.max(range.min ?? -Infinity, v));

function versionValue(e: RatioEstimate, measure: ReviewMeasure): VersionValue {
  if (e.value === null || e.se === null || e.installs < MIN_INSTALLS) return { value: e.value, low: null, high: null, installs: e.installs };
  const half = tQuantile(Z_975, e.installs - 1) * e.se;
  return { value: e.value, low: clip(e.value - half, measure.range), high: clip(e.value + half, measure.range), installs: e.installs };
}

/**
 * Baseline against candidate, measure by measure, from per-install sums: each value with its
 * 95 % interval, the difference with its interval (delta method over installs, t with
 * min(installs) − 1 degrees of freedom), a verdict and the minimum detectable effect.
 */
export function computeReview(rows: readonly InstallSums[], baseline: string, candidate: string): Review {
  if (baseline === candidate) throw new RangeError(`a review compares two different versions, got ${baseline} twice`);
  return reviewPairedSums(pairInstalls(rows, baseline, candidate), baseline, candidate);
}

/** The review itself, from both versions' sums already paired by install. */
export function reviewPairedSums(paired: PairedSums, baseline: string, candidate: string): Review {
  const { baseline: baseSums, candidate: candSums } = paired;
  const measures = REVIEW_MEASURES.map((measure, k): MeasureReview => {
    const base = ratioOfSums(baseSums[k]!);
    const cand = ratioOfSums(candSums[k]!);
    const diff = differenceOfRatios(baseSums[k]!, candSums[k]!, base, cand);
    const df = Math.min(base.installs, cand.installs) - 1;
    const sufficient = df + 1 >= MIN_INSTALLS && diff.value !== null && diff.se !== null;
    // Neither version ever had the numerator's event: no change, but no spread to size an effect by either.
    const neverHappened = base.value === 0 && cand.value === 0 && diff.se === 0;
    const half = sufficient ? tQuantile(Z_975, df) * diff.se! : null;
    const difference: Interval = { value: diff.value, low: half === null ? null : diff.value! - half, high: half === null ? null : diff.value! + half };
    return {
      id: measure.id,
      baseline: versionValue(base, measure),
      candidate: versionValue(cand, measure),
      difference,
      verdict: verdictFor({ baselineInstalls: base.installs, candidateInstalls: cand.installs, difference, better: measure.better }),
      min_detectable: sufficient && !neverHappened ? minDetectableEffect(diff.se!, df) : null,
    };
  });
  return { baseline, candidate, measures };
}
