import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { createObserverLoop, DEFAULT_LOOP_CONFIG } from '../../src/worker/observer-loop.js';
import { storeLoopQueue } from '../../src/worker/store-loop-queue.js';
import { HAND_NOW, handLoopDeps, settleLoop } from '../support/hand-observer-loop.js';
import { makeTempDir } from '../support/temp-dir.js';

// The worker's 30 s tick asks the loop to look again, in case another process queued work
// without waking it; the loop forgot what it knew of every waiting session and read each one
// again from the store, holding the event loop (and a hook) 17 ms at 500 sessions, 120 at 5,000
// (`npm run bench -- loop-wake`).
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

describe('a rescan of sessions waiting for their turn to end', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  const stores: Store[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    temp?.cleanup();
    temp = undefined;
  });

  it('reads again only the session another process queued for', async () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'memtrace.db');
    const worker = openStore(file);
    stores.push(worker);
    const sessions = Array.from({ length: 10 }, (_, i) => `session-${i}`);
    for (const id of sessions) enqueue(worker, id, `${id}-0`);
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
    const other = openStore(file);
    stores.push(other);
    enqueue(other, 'session-3', 'session-3-1');
    enqueue(other, 'session-3', null);
    loop.rescan();
    await settleLoop(() => observed.length > 0, 20);
    expect(observed).toEqual([['session-3#4', 'session-3#11', 'session-3#12']]);
    expect(reads).toBe(sessions.length + 1);
    await loop.stop(0);
  });
});
