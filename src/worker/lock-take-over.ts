import { WorkerRunningError, type WorkerInfo, type WorkerLock } from '../data-dir/index.js';
import type { Logger } from '../log.js';
import { isNewerVersion } from '../version-order.js';

/**
 * The starting worker's side of an upgrade: the data dir's lock, taken over from an older worker.
 * A worker of an older version holding it is asked to hand over (it finishes its observer calls,
 * releases the lock and exits) and this one waits for the lock. A worker of this version or a
 * newer one is never asked: the start fails as it always did, naming the running worker. A worker
 * from before take-over existed (it answers the request 404) is stopped with SIGTERM once it has
 * no observer call in flight, so no call is cut off and paid twice.
 */
export interface LockTakeOverDeps {
  dataDir: string;
  version: string;
  log: Logger;
  /** How long to wait for the older worker to let go: its calls in flight finish first. */
  waitMs: number;
  acquire(): WorkerLock;
  askHandOver(): Promise<'accepted' | 'refused' | 'no_route' | 'unreachable'>;
  /** Calls the holder has in flight (its /health), null when it does not answer. */
  inFlight(holder: WorkerInfo): Promise<number | null>;
  terminate(pid: number): void;
  sleep(ms: number): Promise<void>;
  nowMs(): number;
}

export class HandOverTimeoutError extends Error {
  constructor(holder: WorkerInfo, waitedMs: number) {
    super(`memtrace ${holder.version} (pid ${holder.pid}) did not hand over within ${Math.round(waitedMs / 1000)} s; stop it with 'memtrace worker stop'`);
    this.name = 'HandOverTimeoutError';
  }
}

const POLL_MS = 200;

export async function acquireLockTakingOver(deps: LockTakeOverDeps): Promise<{ lock: WorkerLock; tookOverFrom: WorkerInfo | null }> {
  let holder: WorkerInfo;
  try {
    return { lock: deps.acquire(), tookOverFrom: null };
  } catch (error) {
    if (!(error instanceof WorkerRunningError) || error.holder === null || !isNewerVersion(deps.version, error.holder.version)) throw error;
    holder = error.holder;
  }
  deps.log.info(`memtrace ${holder.version} (pid ${holder.pid}) holds the data dir; asking it to hand over to ${deps.version}`);
  const startedMs = deps.nowMs();
  const deadline = startedMs + deps.waitMs;
  const answer = await deps.askHandOver();
  if (answer === 'refused') throw new WorkerRunningError(deps.dataDir, holder);
  if (answer === 'no_route') await stopWhenIdle(deps, holder, deadline);
  // 'unreachable': it is going away by itself (stopping, or handing over to another start).
  while (deps.nowMs() < deadline) {
    try {
      return { lock: deps.acquire(), tookOverFrom: holder };
    } catch (error) {
      if (!(error instanceof WorkerRunningError)) throw error;
      const now = error.holder;
      // Another start of this version or a newer one got there first: it serves.
      if (now !== null && now.pid !== holder.pid && !isNewerVersion(deps.version, now.version)) throw error;
    }
    await deps.sleep(POLL_MS);
  }
  throw new HandOverTimeoutError(holder, deps.nowMs() - startedMs);
}

async function stopWhenIdle(deps: LockTakeOverDeps, holder: WorkerInfo, deadline: number): Promise<void> {
  deps.log.info(`memtrace ${holder.version} predates take-over; stopping it once its observer calls are done`);
  while (deps.nowMs() < deadline) {
    const calls = await deps.inFlight(holder);
    if (calls === null || calls === 0) break;
    await deps.sleep(500);
  }
  deps.terminate(holder.pid);
}
