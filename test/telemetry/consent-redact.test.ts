import { describe, expect, it } from 'vitest';
import { createExceptionLimiter, errorFingerprint, redactErrorText, resolveConsent } from '../../src/telemetry/index.js';
import { REDACT_INPUT_CAP } from '../../src/telemetry/redact.js';
import { countWork } from '../support/work-counter.js';
import { secretSamples } from '../support/secret-samples.js';

describe('resolveConsent', () => {
  const ok = (enabled: boolean | null) => ({ status: 'ok' as const, enabled });
  it.each([
    [{ DO_NOT_TRACK: '1', MEMTRACE_TELEMETRY: '1' }, ok(true), false, 'DO_NOT_TRACK'],
    [{ DO_NOT_TRACK: '0' }, ok(null), true, 'default'],
    [{ DO_NOT_TRACK: 'false', MEMTRACE_TELEMETRY: 'off' }, ok(true), false, 'MEMTRACE_TELEMETRY'],
    [{ MEMTRACE_TELEMETRY: 'on' }, ok(false), true, 'MEMTRACE_TELEMETRY'],
    [{}, ok(false), false, 'config'],
    [{}, { status: 'corrupt' as const, reason: 'not valid JSON' }, false, 'config_error'],
    [{}, { status: 'missing' as const }, true, 'default'],
    [{ MEMTRACE_TELEMETRY: 'maybe' }, { status: 'missing' as const }, true, 'default'],
  ])('env %j with file %j → enabled %s by %s', (env, file, enabled, layer) => {
    const c = resolveConsent({ env, file });
    expect(c.enabled).toBe(enabled);
    expect(c.layer).toBe(layer);
  });

  it('says why a corrupt config turned telemetry off', () => {
    expect(resolveConsent({ env: {}, file: { status: 'corrupt', reason: 'not valid JSON' } }).reason).toContain('not valid JSON');
  });
});

describe('redactErrorText', () => {
  it.each([
    ['home directory', 'ENOENT: /home/alice/project/src/a.ts', '/home/alice', /alice/],
    ['absolute path', 'failed at /srv/secret-client/build/index.js', undefined, /secret-client/],
    ['windows path', 'failed at C:\\Users\\bob\\code\\app.ts', undefined, /bob/],
    ['email', 'user alice@example.com not found', undefined, /alice@example/],
    ['API key', 'bad key sk-ant-api03-abcdefghijklmnop', undefined, /abcdefghijklmnop/],
    ['bearer token', 'Authorization: Bearer abc.def-ghijklmnop', undefined, /ghijklmnop/],
    ['JWT', 'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', undefined, /eyJzdWIi/],
    ['URL credentials', 'GET https://user:pass@api.example.com/x?token=abc123', undefined, /user:pass|abc123/],
    ['cloud key', 'AKIAIOSFODNN7EXAMPLE denied', undefined, /AKIAIOSFODNN7EXAMPLE/],
    ['long hex', `digest ${'ab'.repeat(20)}`, undefined, /abababababab/],
    ['IPv4', 'connect ECONNREFUSED 10.1.2.3:443', undefined, /10\.1\.2\.3/],
  ])('removes a %s', (_, text, homeDir, leak) => {
    expect(redactErrorText(text, homeDir ? { homeDir } : {})).not.toMatch(leak);
  });

  it('removes every kind the store redacts, so no part of a secret reaches an error report', () => {
    for (const s of secretSamples(41)) expect(redactErrorText(`failed: ${s.text}`), s.kind).not.toContain(s.secret.slice(0, 200));
  });

  it('keeps the basename of a path', () => {
    expect(redactErrorText('at /home/alice/app/src/worker.ts:10')).toContain('worker.ts');
  });

  it('caps the input at 8 KB before any pattern, so 200 KB of hostile text costs what 8 KB does', () => {
    const hostile = (kb: number) => `${'a@'.repeat(kb * 256)}${'/x'.repeat(kb * 256)}`;
    let longestSeen = 0;
    const exec = RegExp.prototype.exec;
    RegExp.prototype.exec = function (this: RegExp, input: string) {
      longestSeen = Math.max(longestSeen, String(input).length);
      return exec.call(this, input);
    };
    let out: string;
    try {
      out = redactErrorText(hostile(200));
    } finally {
      RegExp.prototype.exec = exec;
    }
    expect(longestSeen).toBeGreaterThan(0);
    expect(longestSeen).toBeLessThanOrEqual(REDACT_INPUT_CAP);
    expect(REDACT_INPUT_CAP).toBe(8 * 1024);
    expect(out.length).toBeLessThanOrEqual(1024);
    // Past the cap the input's size changes nothing: the same work for 200 KB and 400 KB.
    const [small, large] = [hostile(200), hostile(400)];
    expect(countWork(() => redactErrorText(large)).work).toBe(countWork(() => redactErrorText(small)).work);
  });
});

describe('exception limiter', () => {
  it('lets one report per fingerprint per minute through, carrying the count held back', () => {
    const limiter = createExceptionLimiter();
    const fp = errorFingerprint('TypeError', 'x is undefined at line 3');
    expect(fp).toBe(errorFingerprint('TypeError', 'x is undefined at line 9'));
    expect(limiter.admit(fp, 0)).toEqual({ emit: true, occurrences: 1 });
    expect(limiter.admit(fp, 10_000).emit).toBe(false);
    expect(limiter.admit(fp, 20_000).emit).toBe(false);
    expect(limiter.admit(fp, 60_000)).toEqual({ emit: true, occurrences: 3 });
  });
});
