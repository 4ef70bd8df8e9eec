import type { PendingHead, Store } from '../store/index.js';
import { batchWindow, decideBatch, type BatchLimits } from './batch-policy.js';
import type { LoopQueue } from './loop-types.js';

/** The SQLite queue as the observer loop sees it, batching by `limits`. */
export function storeLoopQueue(store: Store, limits: BatchLimits): LoopQueue {
  // SQLite's count of commits by other connections (this one's own never change it).
  const dataVersion = store.db.prepare('PRAGMA data_version').pluck();
  let lastVersion: unknown = null;
  return {
    sessionsWithWork: () => store.queue.sessionsWithWork(),
    newestQueued: (afterId) => store.queue.newestQueued(afterId),
    newestId: () => store.queue.newestId(),
    claimBatch(sessionId, nowMs, known) {
      if (known !== undefined && known.length > 0) {
        const decision = decideBatch(known, nowMs, limits);
        if ('waitUntilMs' in decision) return { waitUntilMs: decision.waitUntilMs, heads: [...known] };
      }
      let wait: number | null = null;
      let heads: PendingHead[] = [];
      const claimed = store.queue.claimBatch(sessionId, batchWindow(limits), nowMs, (rows) => {
        const decision = decideBatch(rows, nowMs, limits);
        heads = rows;
        if ('close' in decision) return decision.close;
        if ('waitUntilMs' in decision) wait = decision.waitUntilMs;
        return [];
      });
      if (claimed.length > 0) return { batch: { sessionId, messages: claimed } };
      return wait !== null ? { waitUntilMs: wait, heads } : null;
    },
    releaseBatch: (ids, notBeforeMs, countAttempt) => void store.queue.releaseMany(ids, notBeforeMs, countAttempt),
    confirm: (id) => store.queue.confirm(id),
    sessionHasWork: (sessionId) => store.queue.sessionHasWork(sessionId),
    transaction: (fn) => store.db.transaction(fn)(),
    probeWrite: (nowMs) => store.probeWrite(nowMs),
    changedElsewhere() {
      const version = dataVersion.get();
      const changed = version !== lastVersion;
      lastVersion = version;
      return changed;
    },
  };
}
