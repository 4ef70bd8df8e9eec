import { describe, expect, it } from 'vitest';
import { createUptimeClock } from '../../src/worker/uptime.js';

/** A machine's clocks: monotonic and wall advance together until it is suspended. */
function clocks(start = 5_000) {
  const at = { monotonic: start, wall: 1_700_000_000_000 };
  return {
    at,
    run(ms: number) {
      at.monotonic += ms;
      at.wall += ms;
    },
    suspend(ms: number) {
      at.wall += ms;
    },
  };
}

describe('the uptime clock hook calls are timed by', () => {
  it('reads /proc/uptime once and carries it forward by the monotonic clock while the wall clock agrees', () => {
    const machine = clocks();
    let booted = 100;
    const reads: number[] = [];
    const uptime = createUptimeClock({
      read: () => {
        reads.push(machine.at.monotonic);
        return booted + machine.at.monotonic / 1000;
      },
      monotonicMs: () => machine.at.monotonic,
      wallMs: () => machine.at.wall,
      refreshMs: 60_000,
    });
    expect(uptime()).toBe(105);
    machine.run(250);
    expect(uptime()).toBeCloseTo(105.25, 6);
    machine.run(30_000);
    expect(uptime()).toBeCloseTo(135.25, 6);
    expect(reads).toEqual([5_000]);
    // Suspended for 10 s: uptime counts it, the monotonic clock does not, the wall clock says so.
    machine.suspend(10_000);
    booted += 10;
    machine.run(100);
    expect(uptime()).toBeCloseTo(145.35, 6);
    expect(reads).toEqual([5_000, 35_350]);
    // And at the latest after refreshMs.
    machine.run(60_000);
    expect(uptime()).toBeCloseTo(205.35, 6);
    expect(reads).toHaveLength(3);
  });

  it('reads again after a monotonic clock that went back, and says nothing where there is no /proc', () => {
    const machine = clocks(10_000);
    let value: number | null = 50;
    let reads = 0;
    const uptime = createUptimeClock({
      read: () => {
        reads += 1;
        return value;
      },
      monotonicMs: () => machine.at.monotonic,
      wallMs: () => machine.at.wall,
    });
    expect(uptime()).toBe(50);
    machine.at.monotonic -= 1;
    expect(uptime()).toBe(50);
    expect(reads).toBe(2);
    value = null;
    machine.suspend(1_000);
    expect(uptime()).toBeNull();
    expect(uptime()).toBeNull();
    expect(reads).toBe(4);
  });
});
