/**
 * Compaction settings. Pure: `loadCompactionConfig(env)` returns values and errors that name the
 * variable (docs/compaction.md lists them).
 */
export interface CompactionConfig {
  /** Compact a project when its memory (raw observations + top summaries) exceeds this; 0 turns compaction off. */
  budgetTokens: number;
  /** The newest observations of a project always stay raw. */
  keepRecentObservations: number;
  /** A leaf condenses a run of the oldest raw observations up to this many input tokens. */
  leafInputTokens: number;
  /** A run smaller than this is not worth a summarizer call: nothing to compact. */
  leafMinInputTokens: number;
  /** Condense once this many summaries of one depth sit on top. */
  fanIn: number;
  /** How often the scheduler looks for work. */
  tickMs: number;
  /** First look after start. */
  initialDelayMs: number;
  /** Summarizer calls at most per project per pass, so one project cannot starve the rest. */
  maxStepsPerProject: number;
  /** Retry after a failure: base × 2^attempts, capped (docs/interfaces.md#escalation-and-retry: 5 min doubling, cap 30 min). */
  retry: { baseMs: number; capMs: number };
}

export const DEFAULT_COMPACTION_CONFIG: CompactionConfig = {
  budgetTokens: 20_000,
  keepRecentObservations: 50,
  leafInputTokens: 3_000,
  leafMinInputTokens: 600,
  fanIn: 4,
  tickMs: 60_000,
  initialDelayMs: 10_000,
  maxStepsPerProject: 8,
  retry: { baseMs: 5 * 60_000, capMs: 30 * 60_000 },
};

export type CompactionConfigResult = { config: CompactionConfig; errors: string[] };

/** Invalid values keep their default and are reported, so a typo never stops the worker. */
export function loadCompactionConfig(env: Record<string, string | undefined>): CompactionConfigResult {
  const errors: string[] = [];
  const config: CompactionConfig = { ...DEFAULT_COMPACTION_CONFIG };
  const read = (name: string, min: number, max: number): number | null => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return null;
    if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      errors.push(`${name}=${raw} is not a whole number between ${min} and ${max}; using the default`);
      return null;
    }
    return Number(raw);
  };
  const budget = read('MEMTRACE_COMPACTION_BUDGET_TOKENS', 0, 10_000_000);
  if (budget !== null) {
    if (budget !== 0 && budget < 1_000) errors.push(`MEMTRACE_COMPACTION_BUDGET_TOKENS=${budget} is below 1000 (0 turns compaction off); using the default`);
    else config.budgetTokens = budget;
  }
  const keep = read('MEMTRACE_COMPACTION_KEEP_RECENT', 1, 100_000);
  if (keep !== null) config.keepRecentObservations = keep;
  return { config, errors };
}
