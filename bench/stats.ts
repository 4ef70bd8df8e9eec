/** Percentiles over a sample of durations (ms). */
function percentile(sortedAscending: number[], p: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const index = Math.min(sortedAscending.length - 1, Math.max(0, Math.ceil((p / 100) * sortedAscending.length) - 1));
  return sortedAscending[index]!;
}

/** The p-th percentile of unsorted samples, rounded to `decimals` places. */
export function roundedPercentile(samples: readonly number[], p: number, decimals = 1): number {
  const scale = 10 ** decimals;
  return (
    Math.round(
      percentile(
        [...samples].sort((a, b) => a - b),
        p,
      ) * scale,
    ) / scale
  );
}

export function summarize(samplesMs: number[]): { n: number; p50_ms: number; p95_ms: number; p99_ms: number; max_ms: number } {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    n: sorted.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    p99_ms: round(percentile(sorted, 99)),
    max_ms: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

/**
 * The median of per-round ratios a[i] / b[i] (runs of two variants made one after the other in
 * the same round), to two places: drift in the machine's load between rounds cancels out.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  return Math.round(roundedPercentile(ratiosOf(a, b), 50, 4) * 100) / 100;
}

/** Each round's f(a[i], b[i]), for the rounds both ran. */
const pairwise = (a: readonly number[], b: readonly number[], f: (x: number, y: number) => number): number[] => a.slice(0, b.length).map((x, i) => f(x, b[i]!));
const ratiosOf = (a: readonly number[], b: readonly number[]): number[] => pairwise(a, b, (x, y) => x / y);

/**
 * A 95 % confidence interval for the median of the paired ratios a[i] / b[i], to two places:
 * the order statistics a binomial(n, ½) count puts around the median, so it assumes nothing of
 * how the runs spread. Null under 6 pairs, where no such interval reaches 95 %.
 */
export function pairedRatioInterval(a: readonly number[], b: readonly number[]): [number, number] | null {
  const interval = medianInterval(ratiosOf(a, b));
  return interval && [Math.round(interval[0] * 100) / 100, Math.round(interval[1] * 100) / 100];
}

/** The median of the paired differences a[i] - b[i] and its 95 % interval, as [low, median, high] (null under 6 pairs). */
export function pairedDifference(a: readonly number[], b: readonly number[]): [number, number, number] | null {
  const differences = pairwise(a, b, (x, y) => x - y);
  const interval = medianInterval(differences);
  return interval && [interval[0], roundedPercentile(differences, 50, 3), interval[1]];
}

/** The order statistics that cover the median of `xs` with ≥ 95 %, whatever their distribution. */
function medianInterval(xs: readonly number[]): [number, number] | null {
  const sorted = [...xs].sort((x, y) => x - y);
  const k = medianIntervalRank(sorted.length);
  return k === null ? null : [sorted[k - 1]!, sorted[sorted.length - k]!];
}

/** The largest k (1-based) with P(Binomial(n, ½) < k) ≤ 2.5 %: [x(k), x(n-k+1)] covers the median with ≥ 95 %. */
function medianIntervalRank(n: number): number | null {
  let below = 0; // P(X < k), built up term by term
  let term = 0.5 ** n; // P(X = 0)
  let k = 0;
  while (k < n && below + term <= 0.025) {
    below += term;
    term = (term * (n - k)) / (k + 1);
    k += 1;
  }
  return k >= 1 ? k : null;
}

/**
 * The round's order of the variants, drawn anew each round from a fixed seed: no variant always
 * runs right after the one that leaves the machine busiest (a worker stopping, a cold start's
 * files), and a rerun draws the same orders.
 */
export function roundOrder<T>(variants: readonly T[], round: number): T[] {
  const order = [...variants];
  let state = (round + 1) * 0x9e3779b1;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
