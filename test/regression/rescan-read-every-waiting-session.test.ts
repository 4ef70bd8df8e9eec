import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createObserverLoop, DEFAULT_LOOP_CONFIG } from '../../src/worker/observer-loop.js';
import { storeLoopQueue } from '../../src/worker/store-loop-queue.js';
import { handLoopDeps, loopStores, queueForLoop, settleLoop } from '../support/hand-observer-loop.js';

// The worker's 30 s tick asks the loop to look again, in case another process queued work
// without waking it; the loop forgot what it knew of every waiting session and read each one
// again from the store, holding the event loop (and a hook) 17 ms at 500 sessions, 120 at 5,000
// (`npm run bench -- loop-wake`).
describe('a rescan of sessions waiting for their turn to end', () => {
  let stores: ReturnType<typeof loopStores>;
  beforeEach(() => {
    stores = loopStores();
  });
  afterEach(() => stores.close());

  it('reads again only the session another process queued for', async () => {
    const worker = stores.open();
    const sessions = Array.from({ length: 10 }, (_, i) => `session-${i}`);
    for (const id of sessions) queueForLoop(worker, id, `${id}-0`);
    const real = storeLoopQueue(worker, { maxEvents: 40, maxTokens: 1_000_000, maxWaitMs: 300_000 });
    let reads = 0;
    const observed: string[][] = [];
    const loop = createObserverLoop(
      DEFAULT_LOOP_CONFIG,
      handLoopDeps(
        {
          ...real,
          claimBatch: (...args) => {
            reads += 1;
            return real.claimBatch(...args);
          },
        },
        {
          runTurn: (batch) => {
            observed.push(batch.messages.map((m) => `${m.sessionId}#${m.id}`));
            return new Promise(() => undefined);
          },
        },
      ),
    );
    loop.rescan();
    await settleLoop(() => false, 5);
    // Each session's one event waits for its turn to end (or five minutes).
    expect(reads).toBe(sessions.length);
    expect(observed).toEqual([]);

    loop.rescan();
    await settleLoop(() => false, 5);
    expect(reads).toBe(sessions.length);

    // `memtrace mine` in a process of its own: one more event and the turn's end for one session, nobody woken.
    const other = stores.open();
    queueForLoop(other, 'session-3', 'session-3-1');
    queueForLoop(other, 'session-3', null);
    loop.rescan();
    await settleLoop(() => observed.length > 0, 20);
    expect(observed).toEqual([['session-3#4', 'session-3#11', 'session-3#12']]);
    expect(reads).toBe(sessions.length + 1);
    await loop.stop(0);
  });
});
