import type { Random } from './prng.js';
import { SHARE_FAILURE_CLASSES } from '../../vocabulary/share-failure.js';
import { SHARE_LAG_BUCKETS } from '../../telemetry/index.js';

/**
 * How a simulated install shares memory through Postgres on a release that has it: about one
 * install in four shares a repository; a sharing session pushes what it learned (a few records),
 * pulls its teammates' (0–3 times as many), nearly all within a second or five, now and then later
 * (a machine that was off); about one sync in fifty fails, mostly a timeout or a refused connection.
 */
export interface ShareProfile {
  shares: boolean;
  teammates: number;
}

const WINDOW_MS = 300_000;
const LAG_WEIGHTS = [0.82, 0.12, 0.03, 0.015, 0.01, 0.005] as const;
const FAILURE_WEIGHTS: Readonly<Partial<Record<(typeof SHARE_FAILURE_CLASSES)[number], number>>> = { timeout: 0.5, refused: 0.3, dns: 0.1, auth: 0.1 };

export function shareProfile(random: Random): ShareProfile {
  return { shares: random() < 0.25, teammates: Math.floor(random() * 4) };
}

function pick<K extends string>(random: Random, weights: Readonly<Partial<Record<K, number>>>): K {
  const entries = Object.entries(weights) as Array<[K, number]>;
  let r = random() * entries.reduce((a, [, w]) => a + w, 0);
  for (const [key, weight] of entries) {
    r -= weight;
    if (r <= 0) return key;
  }
  return entries[0]![0];
}

/** The share_rollup of one session of a sharing install (the worker's loop, in the session's last window), or none. */
export function sessionShareWindows(random: Random, profile: ShareProfile, endMs: number): Array<{ timestamp: number; properties: Record<string, unknown> }> {
  if (!profile.shares) return [];
  const syncs = 1 + Math.floor(random() * 6);
  const pushed = Math.floor(random() * 8);
  const pulled = Math.round(pushed * profile.teammates * random());
  const counts: Record<string, number> = {};
  for (const bucket of SHARE_LAG_BUCKETS) counts[bucket] = 0;
  const lagKeys = Object.fromEntries(SHARE_LAG_BUCKETS.map((b, i) => [b, LAG_WEIGHTS[i] ?? 0]));
  for (let i = 0; i < pulled; i += 1) counts[pick(random, lagKeys)]! += 1;
  for (const c of SHARE_FAILURE_CLASSES) counts[`failure_${c}`] = 0;
  let failures = 0;
  for (let i = 0; i < syncs; i += 1) {
    if (random() >= 0.02) continue;
    failures += 1;
    counts[`failure_${pick(random, FAILURE_WEIGHTS)}`]! += 1;
  }
  const windowStart = Math.floor(endMs / WINDOW_MS) * WINDOW_MS;
  return [
    {
      timestamp: windowStart + WINDOW_MS,
      properties: {
        trigger: 'worker',
        syncs: syncs - failures,
        records_pushed: pushed,
        withdrawals_pushed: random() < 0.05 ? 1 : 0,
        records_pulled: pulled,
        withdrawals_applied: 0,
        records_refused: 0,
        failures,
        ...counts,
        window_start_ts: windowStart,
      },
    },
  ];
}
