import type { Clock } from '../../src/clock.js';
import type { Timers } from '../../src/timers.js';

/**
 * A clock and timers driven by hand: `runUntil` jumps from one due timer to the next, letting
 * the async work each one starts settle before the next, so minutes pass in milliseconds.
 */
export function manualTime(startMs: number) {
  let now = startMs;
  const pending: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  const clock: Clock = { now: () => now };
  const timers: Timers = {
    setTimeout(fn, ms) {
      const entry = { at: now + Math.max(0, ms), fn, cancelled: false };
      pending.push(entry);
      return {
        cancel: () => {
          entry.cancelled = true;
        },
      };
    },
  };
  return {
    clock,
    timers,
    now: () => now,
    /** Runs every timer due up to `untilMs` in time order, awaiting `settle` after each. */
    async runUntil(untilMs: number, settle: () => Promise<void> = async () => undefined): Promise<void> {
      for (;;) {
        const live = pending.filter((p) => !p.cancelled && p.at <= untilMs).sort((a, b) => a.at - b.at);
        const next = live[0];
        if (!next) break;
        pending.splice(pending.indexOf(next), 1);
        now = Math.max(now, next.at);
        next.fn();
        await settle();
      }
      now = Math.max(now, untilMs);
    },
  };
}
