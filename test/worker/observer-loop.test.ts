import { describe, expect, it } from 'vitest';
import { createObserverLoop, DEFAULT_LOOP_CONFIG } from '../../src/worker/observer-loop.js';
import { HAND_PROVIDER, handLoopDeps, handQueue, settleLoop } from '../support/hand-observer-loop.js';

describe('the observer loop', () => {
  it('asks again at a rescan for the sessions no observer served, though nothing else changed', async () => {
    let observerInstalled = false;
    const started: string[] = [];
    const loop = createObserverLoop(
      DEFAULT_LOOP_CONFIG,
      handLoopDeps(handQueue(['s1', 's2']), {
        runTurn: (batch) => {
          started.push(batch.sessionId);
          return new Promise(() => undefined);
        },
        providerFor: () => (observerInstalled ? HAND_PROVIDER : null),
      }),
    );
    loop.wake();
    await settleLoop(() => false, 5);
    expect(started).toEqual([]);

    // An agent CLI logged in since (the tick's rescan, or observer-follow's).
    observerInstalled = true;
    loop.rescan();
    await settleLoop(() => started.length === 2, 20);
    expect(started.sort()).toEqual(['s1', 's2']);
    await loop.stop(0);
  });
});
