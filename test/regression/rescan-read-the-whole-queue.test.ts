import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createObserverLoop, DEFAULT_LOOP_CONFIG } from '../../src/worker/observer-loop.js';
import { storeLoopQueue } from '../../src/worker/store-loop-queue.js';
import { handLoopDeps, loopStores, queueForLoop, settleLoop } from '../support/hand-observer-loop.js';

// After another process wrote to the store, the worker's 30 s tick read every session's newest
// queued id (one GROUP BY over the whole queue) to find what that process had queued: with a
// heavy user's backlog (an observer logged out for weeks, a year of transcripts mined) that read
// grew with every message waiting, holding the event loop, and any hook, for as long.
describe('a rescan after another process wrote', () => {
  let stores: ReturnType<typeof loopStores>;
  beforeEach(() => {
    stores = loopStores();
  });
  afterEach(() => stores.close());

  it('reads what was queued since it last looked, not every session in the queue', async () => {
    const worker = stores.open();
    const backlog = Array.from({ length: 100 }, (_, i) => `backlog-${i}`);
    worker.db.transaction(() => {
      for (const id of backlog) for (let k = 0; k < 5; k++) queueForLoop(worker, id, `${id}-${k}`);
    })();
    const real = storeLoopQueue(worker, { maxEvents: 40, maxTokens: 1_000_000, maxWaitMs: 300_000 });
    const sessionsRead: number[] = [];
    const observed: string[][] = [];
    const loop = createObserverLoop(
      DEFAULT_LOOP_CONFIG,
      handLoopDeps(
        {
          ...real,
          newestQueued: (afterId) => {
            const newest = real.newestQueued(afterId);
            sessionsRead.push(newest.size);
            return newest;
          },
        },
        {
          runTurn: (batch) => {
            observed.push(batch.messages.map((m) => m.sessionId));
            return new Promise(() => undefined);
          },
        },
      ),
    );
    loop.rescan();
    await settleLoop(() => false, 5);

    // `memtrace mine` in a process of its own: a session the worker never heard of, and its turn's end.
    const other = stores.open();
    queueForLoop(other, 'mined', 'mined-0');
    queueForLoop(other, 'mined', null);
    loop.rescan();
    await settleLoop(() => observed.length > 0, 20);
    expect(sessionsRead).toEqual([1]);
    expect(observed).toEqual([['mined', 'mined']]);

    // Nothing more written elsewhere: the next tick reads nothing at all.
    loop.rescan();
    await settleLoop(() => false, 5);
    expect(sessionsRead).toEqual([1]);
    await loop.stop(0);
  });
});
