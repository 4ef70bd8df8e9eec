import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { createObserverLoop, DEFAULT_LOOP_CONFIG } from '../../src/worker/observer-loop.js';
import { storeLoopQueue } from '../../src/worker/store-loop-queue.js';
import { HAND_NOW, handLoopDeps, settleLoop } from '../support/hand-observer-loop.js';
import { makeTempDir } from '../support/temp-dir.js';

// After another process wrote to the store, the worker's 30 s tick read every session's newest
// queued id (one GROUP BY over the whole queue) to find what that process had queued: with a
// heavy user's backlog (an observer logged out for weeks, a year of transcripts mined) that read
// grew with every message waiting, holding the event loop, and any hook, for as long.
function enqueue(store: Store, sessionId: string, toolUseId: string | null): void {
  store.queue.enqueue({
    sessionId,
    kind: toolUseId === null ? 'summary' : 'observation',
    toolUseId,
    payload:
      toolUseId === null
        ? { kind: 'stop', session_id: sessionId, at: HAND_NOW, last_assistant_message: 'done' }
        : { kind: 'post_tool_use', session_id: sessionId, at: HAND_NOW, tool_name: 'Read', tool_input: { file_path: 'a.ts' }, tool_response: 'ok' },
    observerBytes: 100,
    nowMs: HAND_NOW,
  });
}

describe('a rescan after another process wrote', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  const stores: Store[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    temp?.cleanup();
    temp = undefined;
  });

  it('reads what was queued since it last looked, not every session in the queue', async () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'memtrace.db');
    const worker = openStore(file);
    stores.push(worker);
    const backlog = Array.from({ length: 100 }, (_, i) => `backlog-${i}`);
    worker.db.transaction(() => {
      for (const id of backlog) for (let k = 0; k < 5; k++) enqueue(worker, id, `${id}-${k}`);
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
    const other = openStore(file);
    stores.push(other);
    enqueue(other, 'mined', 'mined-0');
    enqueue(other, 'mined', null);
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
