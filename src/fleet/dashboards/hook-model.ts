import type { Random } from './prng.js';
import { HOOK_BUCKETS } from './fleet-measures.js';

/**
 * What the hook path costs per call on each memtrace release: 0.1.x starts a TypeScript runtime
 * (tsx) for every hook, about 600 ms; 0.2.x forwards from a plain script, 60–80 ms. Durations are
 * log-normal around the median, so a few calls land in the slow buckets.
 */
const MEDIAN_MS: Readonly<Record<string, number>> = { '0.1.0': 600, '0.2.0': 70 };
const SPREAD = 0.28;
const WINDOW_MS = 300_000;
/** Calls the worker gave up waiting for (the hook's own time limit). */
const TIMEOUT_MS = 2_500;

function durationMs(random: Random, median: number): number {
  // Box–Muller: one normal draw from two uniforms.
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return median * Math.exp(SPREAD * z);
}

export interface HookWindow {
  timestamp: number;
  properties: Record<string, unknown>;
}

/** One hook_rollup's counters for `calls` calls of one hook event. */
function counters(random: Random, median: number, calls: number): Record<string, number> {
  const c: Record<string, number> = { count: calls, total_ms: 0, timeouts: 0, payloads_shortened: 0 };
  for (const b of HOOK_BUCKETS) c[b.key] = 0;
  for (let i = 0; i < calls; i += 1) {
    const ms = durationMs(random, median);
    c.total_ms! += ms;
    const bucket = HOOK_BUCKETS.find((b) => b.upTo === null || ms <= b.upTo)!;
    c[bucket.key]! += 1;
    if (ms > TIMEOUT_MS) c.timeouts! += 1;
    if (random() < 0.02) c.payloads_shortened! += 1;
  }
  c.total_ms = Math.round(c.total_ms!);
  return c;
}

/**
 * The hook_rollup events of one session on a memtrace install: one per 5-minute window for
 * post_tool_use (one call per tool use), and one each for session_start, user_prompt_submit and stop.
 * `msFactor` scales every call's duration (an injected effect on hook cost).
 */
export function sessionHookWindows(random: Random, version: string, startMs: number, endMs: number, toolCalls: number, msFactor = 1): HookWindow[] {
  // A release not listed is a later one: it forwards like 0.2.x.
  const median = (MEDIAN_MS[version] ?? MEDIAN_MS['0.2.0']!) * msFactor;
  const installMode = version.startsWith('0.1.') ? 'settings' : random() < 0.7 ? 'plugin' : 'settings';
  const windowOf = (ms: number) => Math.floor(ms / WINDOW_MS) * WINDOW_MS;
  const out: HookWindow[] = [];
  const emit = (hookEvent: string, windowStart: number, calls: number) => {
    if (calls === 0) return;
    out.push({
      timestamp: windowStart + WINDOW_MS,
      properties: { hook_event: hookEvent, install_mode: installMode, ...counters(random, median, calls), window_start_ts: windowStart },
    });
  };
  emit('session_start', windowOf(startMs), 1);
  emit('user_prompt_submit', windowOf(startMs), 1 + Math.floor(random() * 3));
  const perWindow = new Map<number, number>();
  for (let i = 0; i < toolCalls; i += 1) {
    const at = windowOf(startMs + ((endMs - startMs) * (i + 0.5)) / toolCalls);
    perWindow.set(at, (perWindow.get(at) ?? 0) + 1);
  }
  for (const [windowStart, calls] of perWindow) emit('post_tool_use', windowStart, calls);
  emit('stop', windowOf(endMs), 1);
  return out;
}
