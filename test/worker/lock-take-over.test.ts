import { describe, expect, it } from 'vitest';
import { WorkerRunningError, type WorkerInfo } from '../../src/data-dir/index.js';
import { silentLogger } from '../../src/log.js';
import { acquireLockTakingOver, HandOverTimeoutError, type LockTakeOverDeps } from '../../src/worker/lock-take-over.js';

const holder = (version: string, pid = 100): WorkerInfo => ({ pid, port: 4000, version, started_at: '2026-01-01T00:00:00.000Z' });
const LOCK = { update: () => undefined, release: () => undefined };

/** A data dir's lock held by `holders` in turn (null: free), one per acquire; time moves only in sleeps. */
function starting(version: string, holders: Array<WorkerInfo | null>, answer: Awaited<ReturnType<LockTakeOverDeps['askHandOver']>>, inFlight: number[] = []) {
  let now = 0;
  const asked: string[] = [];
  const terminated: number[] = [];
  const deps: LockTakeOverDeps = {
    dataDir: '/d',
    version,
    log: silentLogger,
    waitMs: 75_000,
    acquire: () => {
      const h = holders.length > 1 ? holders.shift()! : holders[0]!;
      if (h === null) return LOCK;
      throw new WorkerRunningError('/d', h);
    },
    askHandOver: async () => {
      asked.push(version);
      return answer;
    },
    inFlight: async () => inFlight.shift() ?? 0,
    terminate: (pid) => terminated.push(pid),
    sleep: async (ms) => {
      now += ms;
    },
    nowMs: () => now,
  };
  return { deps, asked, terminated, now: () => now };
}

describe('a newer worker taking the data dir over', () => {
  it('asks an older worker to hand over and takes the lock once it lets go', async () => {
    const s = starting('0.3.0', [holder('0.2.0'), holder('0.2.0'), holder('0.2.0'), null], 'accepted');
    const taken = await acquireLockTakingOver(s.deps);
    expect(taken.tookOverFrom).toMatchObject({ version: '0.2.0' });
    expect(s.asked).toEqual(['0.3.0']);
  });

  it('never asks a worker of the same or a newer version: the start fails as before, naming it', async () => {
    for (const running of ['0.3.0', '0.4.0', 'unknown']) {
      const s = starting('0.3.0', [holder(running)], 'accepted');
      await expect(acquireLockTakingOver(s.deps)).rejects.toBeInstanceOf(WorkerRunningError);
      expect(s.asked).toEqual([]);
    }
  });

  it('gives up when the older worker refuses (it turned out not older), without waiting', async () => {
    const s = starting('0.3.0', [holder('0.2.0')], 'refused');
    await expect(acquireLockTakingOver(s.deps)).rejects.toBeInstanceOf(WorkerRunningError);
    expect(s.now()).toBe(0);
  });

  it('stops a worker from before take-over with SIGTERM only once its observer calls are done', async () => {
    const s = starting('0.3.0', [holder('0.2.0', 77), holder('0.2.0', 77), null], 'no_route', [2, 1, 0]);
    await acquireLockTakingOver(s.deps);
    expect(s.terminated).toEqual([77]);
    // Two polls of half a second saw calls in flight before it was stopped.
    expect(s.now()).toBeGreaterThanOrEqual(1_000);
  });

  it('lets another start of its own version that won the lock serve, rather than waiting', async () => {
    const s = starting('0.3.0', [holder('0.2.0', 1), holder('0.2.0', 1), holder('0.3.0', 2)], 'accepted');
    await expect(acquireLockTakingOver(s.deps)).rejects.toMatchObject({ holder: { pid: 2, version: '0.3.0' } });
  });

  it('gives up with one line after the wait when the older worker never lets go', async () => {
    const s = starting('0.3.0', [holder('0.2.0')], 'accepted');
    const error = await acquireLockTakingOver(s.deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HandOverTimeoutError);
    expect((error as Error).message).toBe("memtrace 0.2.0 (pid 100) did not hand over within 75 s; stop it with 'memtrace worker stop'");
  });

  it('takes a free lock without asking anyone', async () => {
    const s = starting('0.3.0', [null], 'accepted');
    expect(await acquireLockTakingOver(s.deps)).toEqual({ lock: LOCK, tookOverFrom: null });
    expect(s.asked).toEqual([]);
  });
});
