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
  const ratios = a.slice(0, b.length).map((x, i) => x / b[i]!);
  return Math.round(roundedPercentile(ratios, 50, 4) * 100) / 100;
}
