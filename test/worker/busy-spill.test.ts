import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/log.js';
import type { Timers } from '../../src/timers.js';
import { createBusySpill, type ReplayOutcome } from '../../src/worker/busy-spill.js';

/** Timers run by hand: `fire` runs what is due. */
function handTimers() {
  const due: Array<() => void> = [];
  const timers: Timers = {
    setTimeout(fn) {
      due.push(fn);
      return {
        cancel: () => {
          const at = due.indexOf(fn);
          if (at >= 0) due.splice(at, 1);
        },
      };
    },
  };
  return {
    timers,
    pending: () => due.length,
    async fire() {
      for (const fn of due.splice(0)) fn();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('events kept in the spool while the store’s write lock is held', () => {
  it('send later events after them until a replay finds the spool empty, retrying while it waits', async () => {
    const clock = handTimers();
    const outcomes: ReplayOutcome[] = ['waiting', 'waiting', 'drained'];
    let replays = 0;
    const log = createMemoryLogger();
    const spill = createBusySpill({
      replay: async () => {
        replays += 1;
        return outcomes.shift() ?? 'drained';
      },
      timers: clock.timers,
      log,
    });
    expect(spill.spilling()).toBe(false);
    spill.spilled();
    spill.spilled(); // one retry at a time, however many join
    expect(spill.spilling()).toBe(true);
    expect(clock.pending()).toBe(1);
    await clock.fire();
    await clock.fire();
    expect(spill.spilling()).toBe(true);
    expect(replays).toBe(2);
    await clock.fire();
    expect(replays).toBe(3);
    expect(spill.spilling()).toBe(false);
    expect(clock.pending()).toBe(0);
    // A second spell (an import spills hundreds of times) adds no line to the log.
    spill.spilled();
    await clock.fire();
    expect(spill.spilling()).toBe(false);
    expect(log.records.filter((r) => r.message.includes('write lock'))).toHaveLength(1);
  });

  it('stop cancels the retry; what waits stays in the spool for the next start', async () => {
    const clock = handTimers();
    let replays = 0;
    const spill = createBusySpill({
      replay: async () => {
        replays += 1;
        return 'waiting';
      },
      timers: clock.timers,
      log: createMemoryLogger(),
    });
    spill.spilled();
    spill.stop();
    expect(clock.pending()).toBe(0);
    spill.spilled();
    await clock.fire();
    expect(replays).toBe(0);
  });
});
