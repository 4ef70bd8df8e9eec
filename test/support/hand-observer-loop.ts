import path from 'node:path';
import { silentLogger } from '../../src/log.js';
import type { ObserverProvider } from '../../src/providers/types.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { LoopQueue, QueuedHead } from '../../src/worker/loop-types.js';
import type { ObserverLoopDeps } from '../../src/worker/observer-loop.js';
import { queuedToolUse } from './queued-events.js';
import { makeTempDir } from './temp-dir.js';

/** The clock of a loop run by hand: it stands still. */
export const HAND_NOW = 1_000_000;
export const HAND_PROVIDER: ObserverProvider = { name: 'anthropic', model: 'hand', complete: () => Promise.reject(new Error('never called')) };

/** A queue of sessions that each have one batch ready; what a test does not give does nothing. */
export function handQueue(sessions: readonly string[], overrides: Partial<LoopQueue> = {}): LoopQueue {
  return {
    sessionsWithWork: () => [...sessions],
    newestQueued: () => new Map(),
    newestId: () => 0,
    claimBatch: (sessionId) => ({ batch: { sessionId, messages: [{ id: sessions.indexOf(sessionId) + 1, sessionId, kind: 'observation', attempts: 0 }] } }),
    releaseBatch: () => undefined,
    confirm: () => true,
    sessionHasWork: () => true,
    transaction: (fn) => fn(),
    probeWrite: () => undefined,
    changedElsewhere: () => false,
    ...overrides,
  };
}

/** An observer loop's deps with a clock that stands still and timers that never fire (the loop's waits are held by hand). */
export function handLoopDeps(queue: LoopQueue, overrides: Partial<ObserverLoopDeps> = {}): ObserverLoopDeps {
  return {
    queue,
    runTurn: () => new Promise(() => undefined),
    providerFor: () => HAND_PROVIDER,
    observing: () => true,
    telemetry: { recordTurn: () => undefined, sessionEnded: () => undefined, captureException: () => undefined },
    clock: { now: () => HAND_NOW },
    log: silentLogger,
    timers: { setTimeout: () => ({ cancel: () => undefined }) },
    ...overrides,
  };
}

/** Lets the loop's passes (each a setImmediate) and the promises they start run, until `done` or `turns` event-loop turns. */
export async function settleLoop(done: () => boolean, turns = 200): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
}

/** What the intake hands the loop with an event it queued. */
export const queuedHead = (id: number): QueuedHead => ({ id, kind: 'observation', notBefore: 0, createdAt: HAND_NOW, bytes: 100 });

/** Queues a tool event for the session in a real store, or with a null id its turn's end, as the intake or another process would. */
export function queueForLoop(store: Store, sessionId: string, toolUseId: string | null): void {
  store.queue.enqueue({
    sessionId,
    kind: toolUseId === null ? 'summary' : 'observation',
    toolUseId,
    payload:
      toolUseId === null ? { kind: 'stop', session_id: sessionId, at: HAND_NOW, last_assistant_message: 'done' } : queuedToolUse(sessionId, { at: HAND_NOW }),
    observerBytes: 100,
    nowMs: HAND_NOW,
  });
}

/** Connections to one store file in a temp dir: the worker's, and another process's; `close()` closes them all and removes the dir. */
export function loopStores() {
  const temp = makeTempDir();
  const file = path.join(temp.dir, 'memtrace.db');
  const opened: Store[] = [];
  return {
    open(): Store {
      const store = openStore(file);
      opened.push(store);
      return store;
    },
    close(): void {
      for (const store of opened.splice(0)) store.close();
      temp.cleanup();
    },
  };
}
