import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { TurnRecord } from '../../src/observer/turn-record.js';
import { ProviderError } from '../../src/providers/types.js';
import type { LoopBatch } from '../../src/worker/loop-types.js';
import { createObserverCalls, type ObserverCallsDeps } from '../../src/worker/observer-calls.js';
import { DEFAULT_LOOP_CONFIG } from '../../src/worker/observer-loop.js';
import { HAND_NOW, HAND_PROVIDER, handQueue } from '../support/hand-observer-loop.js';

const batch = (sessionId: string, id = 1): LoopBatch => ({ sessionId, messages: [{ id, sessionId, kind: 'observation', attempts: 0 }] });

/** Timers run by hand: `fire()` runs every one set and not cancelled. */
function handTimers() {
  const pending = new Set<() => void>();
  return {
    timers: {
      setTimeout(fn: () => void) {
        pending.add(fn);
        return { cancel: () => void pending.delete(fn) };
      },
    },
    fire() {
      const due = [...pending];
      pending.clear();
      for (const fn of due) fn();
    },
  };
}

function calls(overrides: Partial<ObserverCallsDeps> = {}) {
  const released: Array<{ ids: readonly number[]; countAttempt: boolean }> = [];
  const ended: string[] = [];
  const clock = handTimers();
  const deps: ObserverCallsDeps = {
    queue: handQueue([], { releaseBatch: (ids, _at, countAttempt) => void released.push({ ids, countAttempt }) }),
    runTurn: () => new Promise<TurnRecord>(() => undefined),
    telemetry: { recordTurn: () => undefined, sessionEnded: () => undefined, captureException: () => undefined },
    clock: { now: () => HAND_NOW },
    log: silentLogger,
    timers: clock.timers,
    ended: (sessionId) => void ended.push(sessionId),
    storeFaulted: () => undefined,
    budgetHeld: () => undefined,
    ...overrides,
  };
  return { calls: createObserverCalls(DEFAULT_LOOP_CONFIG, deps), released, ended, fire: clock.fire };
}

const settle = async (done: () => boolean) => {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('observer calls', () => {
  it('hold a session while its call runs and let it go when the call ends', async () => {
    let finish: (turn: TurnRecord) => void = () => undefined;
    const { calls: c, ended } = calls({ runTurn: () => new Promise<TurnRecord>((resolve) => (finish = resolve)) });
    c.start(batch('s1'), HAND_PROVIDER, false, HAND_NOW);
    expect(c.has('s1')).toBe(true);
    expect(c.inFlight()).toBe(1);
    expect(c.calls(HAND_NOW + 250)).toEqual([{ messageIds: [1], provider: 'anthropic', ageMs: 250, probe: false }]);
    finish({} as TurnRecord);
    await settle(() => ended.length > 0);
    expect(ended).toEqual(['s1']);
    expect(c.has('s1')).toBe(false);
  });

  it('release the batch of a call that outlives its deadline, and free its slot though the provider ignores the abort', async () => {
    const { calls: c, released, ended, fire } = calls();
    c.start(batch('s1', 7), HAND_PROVIDER, false, HAND_NOW);
    fire();
    await settle(() => ended.length > 0);
    expect(ended).toEqual(['s1']);
    expect(released.map((r) => r.ids)).toEqual([[7]]);
    expect(c.inFlight()).toBe(0);
  });

  it('close the provider to every session when it refuses, and name it when a new session asks for its probe', async () => {
    const { calls: c, ended } = calls({ runTurn: () => Promise.reject(new ProviderError('auth', 'not logged in')) });
    c.start(batch('s1'), HAND_PROVIDER, false, HAND_NOW);
    await settle(() => ended.length > 0);
    expect(c.gate('anthropic').admit(HAND_NOW).go).toBe(false);
    expect(c.providerWaits().map((w) => [w.provider, w.reason])).toEqual([['anthropic', 'auth']]);
    expect(c.expediteRefused(HAND_NOW)).toEqual(['anthropic']);
    expect(c.gate('anthropic').admit(HAND_NOW)).toEqual({ go: true, probe: true });
  });

  it('let calls finish at a hand-over, and abort them (releasing their batches) at a plain stop', async () => {
    let finish: (turn: TurnRecord) => void = () => undefined;
    const handOver = calls({ runTurn: () => new Promise<TurnRecord>((resolve) => (finish = resolve)) });
    handOver.calls.start(batch('s1', 3), HAND_PROVIDER, false, HAND_NOW);
    const stopped = handOver.calls.stop(60_000, { finishCalls: true });
    finish({} as TurnRecord);
    await stopped;
    expect(handOver.released).toEqual([]);

    const plain = calls();
    plain.calls.start(batch('s2', 4), HAND_PROVIDER, false, HAND_NOW);
    await plain.calls.stop(60_000);
    expect(plain.released.map((r) => r.ids)).toEqual([[4]]);
    expect(plain.ended).toEqual(['s2']);
  });
});
