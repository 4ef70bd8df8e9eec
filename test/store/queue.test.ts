import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { queuedToolUse } from '../support/queued-events.js';

describe('queue', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let file: string;
  let store: Store;
  beforeEach(() => {
    temp = makeTempDir();
    file = path.join(temp.dir, 'memtrace.db');
    store = openStore(file);
  });
  afterEach(() => {
    try {
      store.close();
    } catch {
      /* already closed */
    }
    temp.cleanup();
  });

  const enqueue = (sessionId: string, toolUseId: string | null, nowMs = 1_000) =>
    store.queue.enqueue({ sessionId, kind: 'observation', toolUseId, payload: queuedToolUse(sessionId), nowMs });

  it('returns a claimed but unconfirmed message to pending after a crash', () => {
    const { id } = enqueue('s1', 'tu1');
    expect(store.queue.claimNext('s1', 2_000)?.id).toBe(id);
    expect(store.queue.claimNext('s1', 2_000)).toBeNull();
    store.close(); // the process dies before confirming

    store = openStore(file, { recoverClaimed: true });
    expect(store.recoveredClaimed).toBe(1);
    const again = store.queue.claimNext('s1', 3_000);
    expect(again?.id).toBe(id);
    expect(again?.payload).toEqual(queuedToolUse('s1'));
  });

  it('does not enqueue a tool_use_id twice in one session, even after it was confirmed', () => {
    const first = enqueue('s1', 'tu1');
    expect(enqueue('s1', 'tu1')).toEqual({ status: 'duplicate', id: first.id });
    store.queue.claimNext('s1', 2_000);
    expect(store.queue.confirm(first.id)).toBe(true);
    expect(enqueue('s1', 'tu1').status).toBe('duplicate');
    expect(store.queue.depth()).toBe(0);
  });

  it('keeps the same tool_use_id in two sessions apart', () => {
    expect(enqueue('s1', 'tu1').status).toBe('queued');
    expect(enqueue('s2', 'tu1').status).toBe('queued');
    expect(store.queue.depth()).toBe(2);
  });

  it('queues events without a tool_use_id every time', () => {
    enqueue('s1', null);
    enqueue('s1', null);
    expect(store.queue.depth()).toBe(2);
  });

  it('claims in order and respects not_before after a release', () => {
    const a = enqueue('s1', 'a');
    const b = enqueue('s1', 'b');
    expect(store.queue.claimNext('s1', 2_000)?.id).toBe(a.id);
    expect(store.queue.release(a.id, 10_000)).toBe(true);
    expect(store.queue.claimNext('s1', 2_000)?.id).toBe(b.id);
    expect(store.queue.claimNext('s1', 9_999)).toBeNull();
    const retried = store.queue.claimNext('s1', 10_000);
    expect(retried).toMatchObject({ id: a.id, attempts: 1 });
    expect(store.queue.nextDueAt()).toBeNull();
  });

  it('confirms only a claimed message', () => {
    const a = enqueue('s1', 'a');
    expect(store.queue.confirm(a.id)).toBe(false);
    expect(store.queue.depth()).toBe(1);
  });

  it('lists sessions with work, oldest first, and when each is next due', () => {
    enqueue('s2', 'x', 1);
    enqueue('s1', 'y', 2);
    expect(store.queue.sessionsWithWork()).toEqual(['s2', 's1']);
    expect(store.queue.nextDueAt('s1')).toBe(0);
    expect(store.queue.sessionHasWork('s1')).toBe(true);
    expect(store.queue.sessionHasWork('s3')).toBe(false);
  });

  it('names each session with messages queued after an id, with its newest, and never hands an id out twice', () => {
    expect(store.queue.newestId()).toBe(0);
    const a = enqueue('s1', 'a');
    const b = enqueue('s2', 'b');
    const c = enqueue('s1', 'c');
    expect(store.queue.newestQueued(0)).toEqual(
      new Map([
        ['s1', c.id],
        ['s2', b.id],
      ]),
    );
    expect(store.queue.newestQueued(b.id)).toEqual(new Map([['s1', c.id]]));
    expect(store.queue.newestQueued(c.id)).toEqual(new Map());
    // Confirmed and gone, the newest id is still never used again: a later message comes after it.
    for (const id of [a.id, b.id, c.id]) {
      store.queue.claimNext(id === b.id ? 's2' : 's1', 2_000);
      store.queue.confirm(id);
    }
    const d = enqueue('s3', 'd');
    expect(d.id).toBeGreaterThan(c.id);
    expect(store.queue.newestQueued(c.id)).toEqual(new Map([['s3', d.id]]));
    expect(store.queue.newestId()).toBe(d.id);
  });
});
