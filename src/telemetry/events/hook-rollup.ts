import { count, PLATFORM, windowStart, type EventSpec } from '../field-types.js';

/** The hook events memtrace handles (every host's are mapped to these six), as telemetry names them. */
export const HOOK_EVENTS = ['session_start', 'user_prompt_submit', 'post_tool_use', 'post_tool_use_failure', 'stop', 'session_end'] as const;

/** How the hooks were installed: the plugin, `memtrace install` into settings.json, or unknown (hand-written). */
export const HOOK_INSTALL_MODES = ['plugin', 'settings', 'unknown'] as const;

/**
 * Exclusive duration buckets (upper bounds in ms; the last is open). Buckets, unlike
 * percentiles, add up across windows and installs.
 */
export const HOOK_DURATION_BOUNDS_MS = [50, 100, 250, 500, 1000, 2500] as const;
export const HOOK_DURATION_BUCKETS = [...HOOK_DURATION_BOUNDS_MS.map((b) => `ms_le_${b}` as const), 'ms_gt_2500'] as const;
export type HookDurationBucket = (typeof HOOK_DURATION_BUCKETS)[number];

export function hookDurationBucket(durationMs: number): HookDurationBucket {
  for (const bound of HOOK_DURATION_BOUNDS_MS) if (durationMs <= bound) return `ms_le_${bound}`;
  return 'ms_gt_2500';
}

export const HOOK_ROLLUP: EventSpec = {
  name: 'hook_rollup',
  description: 'The hook path’s own cost to the agent: each hook process’s time from start to reply, folded by the worker.',
  cadence: 'one per 5-minute window with hook calls, per hook event, install mode and platform',
  fields: [
    { key: 'hook_event', type: { kind: 'enum', values: HOOK_EVENTS }, description: 'which hook event (a host’s own events mapped to memtrace’s six)' },
    { key: 'install_mode', type: { kind: 'enum', values: HOOK_INSTALL_MODES }, description: 'plugin, settings (memtrace install) or unknown' },
    { key: 'platform', type: PLATFORM, description: 'the agent host whose hook, plugin or extension ran (other for a host memtrace has no adapter for)' },
    count('count', 'hook calls that reached the worker'),
    count('total_ms', 'sum of hook process durations, start to reply (ms)'),
    ...HOOK_DURATION_BUCKETS.map((b) =>
      count(b, b === 'ms_gt_2500' ? 'calls that took over 2500 ms' : `calls that took at most ${b.slice(6)} ms (and more than the bucket below)`),
    ),
    count('timeouts', 'hook calls that gave up waiting for the worker (their events were spooled and replayed)'),
    count('unreachable', 'hook calls that found no worker running (their events were spooled and replayed)'),
    count('store_busy', 'hook calls whose event waited in the worker’s spool while another process held the store’s write lock (stored once it was free)'),
    count('payloads_shortened', 'events whose largest fields the hook shortened to fit the body limit'),
    windowStart,
  ],
};
