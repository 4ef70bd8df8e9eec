import type { Store } from '../store/index.js';
import type { LoopQueue } from './observer-loop.js';

/** The SQLite queue as the observer loop sees it. */
export function storeLoopQueue(store: Store): LoopQueue {
  return {
    sessionsWithWork: () => store.queue.sessionsWithWork(),
    claimNext: (sessionId, nowMs) => store.queue.claimNext(sessionId, nowMs),
    release: (id, notBeforeMs) => store.queue.release(id, notBeforeMs),
    confirm: (id) => store.queue.confirm(id),
    nextDueAt: (sessionId) => store.queue.nextDueAt(sessionId),
    sessionHasWork: (sessionId) => store.queue.sessionHasWork(sessionId),
    transaction: (fn) => store.db.transaction(fn)(),
    probeWrite: (nowMs) => store.probeWrite(nowMs),
  };
}
