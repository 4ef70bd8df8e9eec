import { describe, expect, it } from 'vitest';
import { decideFailure, retryDelayMs, RETRY_AFTER_CAP_MS } from '../../src/worker/failure-policy.js';
import { createProviderGate } from '../../src/worker/provider-gate.js';
import { ProviderError } from '../../src/providers/types.js';

const gate = () => createProviderGate({ busy: { baseMs: 5_000, capMs: 300_000 }, refused: { baseMs: 30_000, capMs: 300_000 } });

describe('provider gate', () => {
  it('lets every call go while the provider has not asked us to wait', () => {
    expect(gate().admit(0)).toEqual({ go: true, probe: false });
  });

  it('holds every call until the wait is over, then lets exactly one probe go', () => {
    const g = gate();
    const until = g.failed('rate_limit', null, 1_000);
    expect(until).toBe(6_000);
    expect(g.admit(5_999)).toEqual({ go: false, untilMs: 6_000 });
    expect(g.admit(6_000)).toEqual({ go: true, probe: true });
    expect(g.admit(6_001)).toEqual({ go: false, untilMs: null });
    expect(g.succeeded()).toBe(true);
    expect(g.admit(6_002)).toEqual({ go: true, probe: false });
  });

  it('doubles the wait after a failed probe, and lets a new probe go when one ends without a verdict', () => {
    const g = gate();
    g.failed('overloaded', null, 0);
    expect(g.admit(5_000)).toMatchObject({ go: true, probe: true });
    expect(g.failed('overloaded', null, 5_000)).toBe(15_000);
    expect(g.admit(15_000)).toMatchObject({ probe: true });
    g.probeEnded();
    expect(g.admit(15_001)).toMatchObject({ probe: true });
  });

  it('honours Retry-After up to an hour, and waits longer for auth than for a busy provider', () => {
    expect(gate().failed('rate_limit', 3_600_000, 0)).toBe(3_600_000);
    expect(gate().failed('rate_limit', 7 * 86_400_000, 0)).toBe(RETRY_AFTER_CAP_MS);
    expect(gate().failed('auth', null, 0)).toBe(30_000);
    const g = gate();
    g.failed('quota', null, 0);
    expect(g.status()).toEqual({ reason: 'quota', next_attempt_at: new Date(30_000).toISOString(), failures: 1 });
  });
});

describe('a refusal a person may have ended', () => {
  it('lets the probe go at once when asked (a session started), for auth only; a busy provider and a quota keep their wait', () => {
    const refused = gate();
    refused.failed('auth', null, 0);
    expect(refused.expedite(1_000)).toBe(true);
    expect(refused.admit(1_000)).toEqual({ go: true, probe: true });
    // While the probe runs nothing else goes, and asking again changes nothing.
    expect(refused.expedite(1_001)).toBe(false);
    expect(refused.admit(1_001)).toEqual({ go: false, untilMs: null });
    for (const reason of ['rate_limit', 'quota'] as const) {
      const g = gate();
      const until = g.failed(reason, null, 0);
      expect(g.expedite(1_000)).toBe(false);
      expect(g.admit(1_000)).toEqual({ go: false, untilMs: until });
    }
    expect(gate().expedite(0)).toBe(false);
  });
});

describe('failure policy', () => {
  it('makes the provider wait for auth, quota, rate limits and overload, and only those', () => {
    const kinds = ['auth', 'quota', 'rate_limit', 'overloaded', 'transport', 'bad_request'] as const;
    expect(kinds.map((k) => decideFailure(new ProviderError(k, 'x')).action)).toEqual([
      'provider_wait',
      'provider_wait',
      'provider_wait',
      'provider_wait',
      'release',
      'confirm',
    ]);
    expect(decideFailure(new TypeError('our bug')).action).toBe('release');
  });

  it('backs a message off exponentially, capped', () => {
    expect([0, 1, 2, 10].map((a) => retryDelayMs(a, { baseMs: 5_000, capMs: 300_000 }, null))).toEqual([5_000, 10_000, 20_000, 300_000]);
  });
});
