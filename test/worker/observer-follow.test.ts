import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/log.js';
import { noProvider, type ObserverProvider } from '../../src/providers/index.js';
import type { ObserverChoice } from '../../src/providers/select.js';
import { followObserver } from '../../src/worker/observer-follow.js';

/** A choice whose refresh is counted (and may fail), and the loop's calls recorded. */
function setUp(refresh: (nowMs: number) => string | null) {
  const calls: string[] = [];
  const deferred: Array<() => void> = [];
  const provider: ObserverProvider = noProvider();
  const choice: ObserverChoice = {
    forPlatform: () => null,
    primary: provider,
    providers: [],
    describe: () => 'observer: none',
    refresh: (nowMs) => {
      calls.push(`refresh ${nowMs}`);
      return refresh(nowMs);
    },
  };
  const log = createMemoryLogger();
  const follow = followObserver({
    choice,
    loop: { rescan: () => calls.push('rescan'), retryRefused: () => calls.push('retryRefused') },
    log,
    startCompaction: () => null,
    defer: (work) => deferred.push(work),
  });
  return { follow, calls, deferred, log };
}

describe('following the observer while the worker runs', () => {
  it('looks again at a session start only after the hook’s reply, then gives a refused provider its probe', () => {
    const { follow, calls, deferred } = setUp(() => 'observer: claude-code (haiku) — …');
    follow.sessionStarted(5);
    // Nothing on the hook's own path: the looking waits for the reply.
    expect(calls).toEqual([]);
    expect(deferred).toHaveLength(1);
    deferred[0]!();
    expect(calls).toEqual(['refresh 5', 'rescan', 'retryRefused']);
  });

  it('logs a fault in the deferred look, never throws it into the event loop', () => {
    const { follow, calls, deferred, log } = setUp(() => {
      throw new Error('PATH unreadable');
    });
    follow.sessionStarted(7);
    expect(() => deferred[0]!()).not.toThrow();
    expect(calls).toEqual(['refresh 7']);
    expect(log.records.some((r) => r.level === 'warn' && String(r.fields?.error).includes('PATH unreadable'))).toBe(true);
  });
});
