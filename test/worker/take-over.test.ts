import { describe, expect, it } from 'vitest';
import type { StartFailure, StartState } from '../../src/data-dir/start-state.js';
import type { InstalledPackage } from '../../src/install/package-version.js';
import { silentLogger } from '../../src/log.js';
import { createTakeOver } from '../../src/worker/take-over.js';

/** A running worker of 0.2.0 that hooks of several installs reach; processes and files are recorded, not made. */
function runningWorker(installs: Record<string, string>) {
  let now = 1_000_000;
  const spawned: Array<{ pkg: InstalledPackage; exit: (code: number | null) => void }> = [];
  const recorded: StartFailure[] = [];
  const handedOver: string[] = [];
  let said: StartState | null = null;
  const timers: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  const takeOver = createTakeOver({
    self: { version: '0.2.0', bin: '/g/memtrace/bin' },
    dataDir: '/d',
    log: silentLogger,
    nowMs: () => now,
    packageAt: (bin) => (installs[bin] ? { bin, version: installs[bin]! } : null),
    spawn: (pkg, exit) => {
      spawned.push({ pkg, exit });
      return 4242;
    },
    readStartState: () => said,
    recordFailure: (f) => recorded.push(f),
    handOver: (to) => handedOver.push(to),
    defer: (fn) => fn(),
    later: (ms, fn) => {
      const timer = { at: now + ms, fn, cancelled: false };
      timers.push(timer);
      return {
        cancel: () => {
          timer.cancelled = true;
        },
      };
    },
  });
  return {
    takeOver,
    spawned,
    recorded,
    handedOver,
    advance: (ms: number) => {
      now += ms;
      for (const t of timers.filter((x) => !x.cancelled && x.at <= now)) {
        t.cancelled = true;
        t.fn();
      }
    },
    say: (state: StartState) => {
      said = state;
    },
    now: () => now,
  };
}

describe('a running worker meeting a newer install', () => {
  it('starts the newer install once, however many of its hooks arrive before it asks to take over', () => {
    const w = runningWorker({ '/g/memtrace/bin': '0.3.0' });
    for (let i = 0; i < 20; i += 1) w.takeOver.noticeBin('/g/memtrace/bin');
    expect(w.spawned.map((s) => s.pkg)).toEqual([{ bin: '/g/memtrace/bin', version: '0.3.0' }]);
    expect(w.takeOver.status().installed).toEqual({ bin: '/g/memtrace/bin', version: '0.3.0' });
  });

  it('starts nothing for a hook of the same or an older install, or of a folder with no memtrace', () => {
    const w = runningWorker({ '/p/a': '0.2.0', '/p/b': '0.1.9', '/p/c': 'latest' });
    for (const bin of ['/p/a', '/p/b', '/p/c', '/nowhere']) w.takeOver.noticeBin(bin);
    expect(w.spawned).toEqual([]);
    expect(w.takeOver.status().installed).toBeNull();
  });

  it('hands over only to a newer version, and only once', () => {
    const w = runningWorker({});
    expect(w.takeOver.requested('0.2.0')).toBe('refused');
    expect(w.takeOver.requested('0.1.0')).toBe('refused');
    expect(w.handedOver).toEqual([]);
    expect(w.takeOver.requested('0.3.0')).toBe('accepted');
    expect(w.takeOver.requested('0.3.0')).toBe('accepted');
    expect(w.handedOver).toEqual(['0.3.0']);
    expect(w.takeOver.status().handingOver).toBe('0.3.0');
  });

  it('when the newer install dies before it takes over: says why, keeps serving, and tries again only on the backoff', () => {
    const w = runningWorker({ '/g/memtrace/bin': '0.3.0' });
    w.takeOver.noticeBin('/g/memtrace/bin');
    w.spawned[0]!.exit(1);
    expect(w.recorded).toHaveLength(1);
    expect(w.recorded[0]).toMatchObject({ reason: 'take_over', version: '0.3.0' });
    expect(w.recorded[0]!.detail).toContain('exited with code 1 before it took over from 0.2.0');
    expect(w.takeOver.status().failure).toEqual(w.recorded[0]);
    // Hooks keep coming for 14 s: no new attempt.
    for (let i = 0; i < 14; i += 1) {
      w.advance(1_000);
      w.takeOver.noticeBin('/g/memtrace/bin');
    }
    expect(w.spawned).toHaveLength(1);
    w.advance(1_000);
    w.takeOver.noticeBin('/g/memtrace/bin');
    expect(w.spawned).toHaveLength(2);
    w.spawned[1]!.exit(1);
    // The second failure waits 30 s.
    w.advance(29_000);
    w.takeOver.noticeBin('/g/memtrace/bin');
    expect(w.spawned).toHaveLength(2);
    w.advance(1_000);
    w.takeOver.noticeBin('/g/memtrace/bin');
    expect(w.spawned).toHaveLength(3);
  });

  it('keeps the reason the newer worker gave itself rather than a vaguer one', () => {
    const w = runningWorker({ '/g/memtrace/bin': '0.3.0' });
    w.takeOver.noticeBin('/g/memtrace/bin');
    const own: StartFailure = {
      reason: 'config',
      detail: 'MEMTRACE_PORT=x is not a port',
      fix: 'fix it',
      version: '0.3.0',
      at: new Date(w.now() + 10).toISOString(),
    };
    w.say({ attempts: 1, last_attempt_at: null, next_attempt_at: null, last_error: own, running_since: null });
    w.spawned[0]!.exit(1);
    expect(w.takeOver.status().failure).toEqual(own);
    expect(w.recorded).toEqual([]);
  });

  it('holds hook events for the newer version from the moment it is started until it takes over, or gives up', () => {
    const w = runningWorker({ '/g/memtrace/bin': '0.3.0' });
    expect(w.takeOver.holding()).toBe(false);
    w.takeOver.noticeBin('/g/memtrace/bin');
    expect(w.takeOver.holding()).toBe(true);
    w.spawned[0]!.exit(1);
    expect(w.takeOver.holding()).toBe(false);
    w.advance(15_000);
    w.takeOver.noticeBin('/g/memtrace/bin');
    expect(w.takeOver.holding()).toBe(true);
    expect(w.takeOver.requested('0.3.0')).toBe('accepted');
    expect(w.takeOver.holding()).toBe(true);
    // Asked in time: no give-up later.
    w.advance(120_000);
    expect(w.recorded).toHaveLength(1);
  });

  it('serves again when the newer version neither asks nor exits within a minute, and says so', () => {
    const w = runningWorker({ '/g/memtrace/bin': '0.3.0' });
    w.takeOver.noticeBin('/g/memtrace/bin');
    w.advance(59_999);
    expect(w.takeOver.holding()).toBe(true);
    w.advance(1);
    expect(w.takeOver.holding()).toBe(false);
    expect(w.recorded[0]!.detail).toContain('did not ask to take over within 60 s');
    // It may still ask later: a newer version is always let in.
    expect(w.takeOver.requested('0.3.0')).toBe('accepted');
  });

  it('prefers the newest of several newer installs', () => {
    const w = runningWorker({ '/a': '0.3.0', '/b': '0.4.0' });
    w.takeOver.noticeBin('/a');
    w.takeOver.noticeBin('/b');
    expect(w.spawned.map((s) => s.pkg.version)).toEqual(['0.3.0', '0.4.0']);
    expect(w.takeOver.status().installed?.version).toBe('0.4.0');
  });
});
