import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/providers/types.js';
import { createObserverLoop, DEFAULT_LOOP_CONFIG } from '../../src/worker/observer-loop.js';
import { HAND_PROVIDER, handLoopDeps, handQueue, queuedHead, settleLoop } from '../support/hand-observer-loop.js';

// Each event queued woke the observer loop, whose pass walked every session with work and asked
// each one's provider (a store read) and gate: with the provider holding them all (rate limited,
// logged out), 2.6 ms of the worker's event loop per hook at 500 sessions, 26 at 5,000
// (`npm run bench -- loop-wake`).
const SESSIONS = Array.from({ length: 50 }, (_, i) => `s${i}`);

/** Fifty sessions with a batch ready, and a provider whose first call says "overloaded, retry in a minute". */
async function everySessionHeldByTheProvider() {
  const askedFor: string[] = [];
  const loop = createObserverLoop(
    { ...DEFAULT_LOOP_CONFIG, concurrency: 1 },
    handLoopDeps(handQueue(SESSIONS), {
      runTurn: () => Promise.reject(new ProviderError('overloaded', 'overloaded', { status: 529, retryAfterMs: 60_000 })),
      providerFor: (sessionId) => {
        askedFor.push(sessionId);
        return HAND_PROVIDER;
      },
    }),
  );
  loop.wake();
  // The first call fails; its end wakes the loop, which then finds every session held.
  await settleLoop(() => loop.status().providerWaits.length === 1 && askedFor.length > SESSIONS.length);
  await settleLoop(() => false, 20);
  return { loop, askedFor };
}

describe('an event queued while the provider holds every session', () => {
  it('has the loop look at its own session only', async () => {
    const { loop, askedFor } = await everySessionHeldByTheProvider();
    expect(new Set(askedFor)).toEqual(new Set(SESSIONS));
    const before = askedFor.length;

    loop.wake('s7', queuedHead(100));
    loop.wake('s9', queuedHead(101));
    await settleLoop(() => false, 20);

    expect(askedFor.slice(before).sort()).toEqual(['s7', 's9']);
    expect(loop.status().inFlight).toEqual([]);
  });

  it('leaves any other wake-up looking at every session', async () => {
    const { loop, askedFor } = await everySessionHeldByTheProvider();
    const before = askedFor.length;

    loop.wake('s7', queuedHead(100));
    loop.wake();
    await settleLoop(() => false, 20);

    expect(new Set(askedFor.slice(before))).toEqual(new Set(SESSIONS));
  });
});
