/**
 * A windowed rollup of plain counters, split by a few enum dimensions (hook_rollup by hook event
 * and install mode, mining_rollup, compaction_rollup). Counters add up across windows and installs,
 * so dashboards can sum them; a window is one event per dimension set.
 */
export const COUNTER_WINDOW_MS = 300_000;

export interface CounterWindow {
  windowStartMs: number;
  dims: Record<string, string>;
  counters: Record<string, number>;
}

/** Accumulator key: the event and its dimensions in a stable order. */
export function counterWindowKey(event: string, dims: Readonly<Record<string, string>>): string {
  const parts = Object.keys(dims)
    .sort()
    .map((k) => `${k}=${dims[k]}`);
  return `window:${event}${parts.length > 0 ? `:${parts.join(',')}` : ''}`;
}

export function isCounterWindowKey(key: string): boolean {
  return key.startsWith('window:');
}

export function newCounterWindow(windowStartMs: number, dims: Readonly<Record<string, string>>): CounterWindow {
  return { windowStartMs, dims: { ...dims }, counters: {} };
}

/** Adds in place; non-finite or negative increments are ignored rather than corrupting the sums. */
export function addCounters(acc: CounterWindow, increments: Readonly<Record<string, number>>): void {
  for (const [key, value] of Object.entries(increments)) {
    if (!Number.isFinite(value) || value < 0) continue;
    acc.counters[key] = (acc.counters[key] ?? 0) + value;
  }
}

export function finalizeCounterWindow(acc: CounterWindow): Record<string, unknown> {
  const rounded = Object.fromEntries(Object.entries(acc.counters).map(([k, v]) => [k, Math.round(v)]));
  return { ...acc.dims, ...rounded, window_start_ts: acc.windowStartMs };
}
