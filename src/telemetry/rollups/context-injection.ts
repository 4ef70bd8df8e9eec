export const INJECTION_WINDOW_MS = 300_000;

export interface InjectionAccumulator {
  windowStartMs: number;
  count: number;
  ok: number;
  error: number;
  tokens: number;
  observations: number;
  saved: number;
  savedKnown: number;
}

export interface Injection {
  ok: boolean;
  tokensInjected: number;
  observationsInjected: number;
  tokensSavedVsNaive: number | null;
}

export function windowStartFor(nowMs: number, windowMs: number): number {
  return nowMs - (nowMs % windowMs);
}

export function newInjectionAccumulator(windowStartMs: number): InjectionAccumulator {
  return { windowStartMs, count: 0, ok: 0, error: 0, tokens: 0, observations: 0, saved: 0, savedKnown: 0 };
}

export function foldInjection(acc: InjectionAccumulator, injection: Injection): void {
  acc.count += 1;
  if (injection.ok) acc.ok += 1;
  else acc.error += 1;
  acc.tokens += injection.tokensInjected;
  acc.observations += injection.observationsInjected;
  if (injection.tokensSavedVsNaive !== null) {
    acc.saved += injection.tokensSavedVsNaive;
    acc.savedKnown += 1;
  }
}

export function finalizeInjectionRollup(acc: InjectionAccumulator): Record<string, unknown> {
  return {
    count: acc.count,
    outcomes_ok: acc.ok,
    outcomes_error: acc.error,
    total_tokens: acc.tokens,
    avg_tokens: acc.count > 0 ? Math.round((acc.tokens / acc.count) * 10) / 10 : 0,
    total_observations_injected: acc.observations,
    ...(acc.savedKnown > 0 ? { total_tokens_saved_vs_naive: Math.round(acc.saved) } : {}),
    window_start_ts: acc.windowStartMs,
  };
}
