import { describe, expect, it } from 'vitest';
import { displayUrl, parseConnectionUrl, withoutPasswords } from '../../src/share/connection-url.js';
import { pgpassLookup } from '../../src/share/pgpass.js';

const parse = (url: string, env: Record<string, string> = {}) => parseConnectionUrl(url, env, 'osuser');

describe('a shared database URL, read as libpq reads it', () => {
  it('reads every part, and shows the URL without its password', () => {
    const parsed = parse('postgresql://alice:s%40cret@db.example.com:6543/team?sslmode=verify-full&application_name=mt');
    expect(parsed).toMatchObject({
      ok: true,
      target: { host: 'db.example.com', port: 6543, user: 'alice', password: 's@cret', database: 'team', sslmode: 'verify-full' },
    });
    if (!parsed.ok) return;
    expect(displayUrl(parsed.target)).toBe('postgresql://alice@db.example.com:6543/team?sslmode=verify-full');
    expect(displayUrl(parsed.target)).not.toContain('cret');
  });

  it("takes libpq's environment defaults for what the URL leaves out", () => {
    expect(parse('postgres://', { PGHOST: 'h', PGPORT: '7000', PGUSER: 'u', PGDATABASE: 'd', PGSSLMODE: 'require' })).toMatchObject({
      ok: true,
      target: { host: 'h', port: 7000, user: 'u', database: 'd', sslmode: 'require', password: null },
    });
    expect(parse('postgresql:///team')).toMatchObject({ ok: true, target: { host: 'localhost', port: 5432, user: 'osuser', sslmode: 'prefer' } });
  });

  it('reads a socket directory given as a parameter or percent-encoded host, and IPv6 hosts', () => {
    expect(parse('postgresql:///team?host=/var/run/postgresql')).toMatchObject({ ok: true, target: { host: '/var/run/postgresql' } });
    expect(parse('postgresql://%2Ftmp%2Fpg/team')).toMatchObject({ ok: true, target: { host: '/tmp/pg' } });
    expect(parse('postgresql://u@[::1]:5433/team')).toMatchObject({ ok: true, target: { host: '::1', port: 5433 } });
  });

  it('refuses what it cannot use, saying why', () => {
    expect(parse('mysql://x')).toMatchObject({ ok: false, reason: expect.stringContaining('postgresql://') });
    expect(parse('postgresql://h:99999/d')).toMatchObject({ ok: false, reason: expect.stringContaining('port') });
    expect(parse('postgresql://h/d?sslmode=maybe')).toMatchObject({ ok: false, reason: expect.stringContaining('sslmode') });
    expect(parse('postgresql://h/d?options=-c%20x')).toMatchObject({ ok: false, reason: expect.stringContaining('unsupported URL parameter') });
    expect(parse('postgresql://a,b/d')).toMatchObject({ ok: false, reason: expect.stringContaining('several hosts') });
    expect(parse('postgresql://h/d?sslmode=verify-ca')).toMatchObject({ ok: false, reason: expect.stringContaining('sslrootcert') });
  });

  it('strips passwords from any text that may hold a URL', () => {
    expect(withoutPasswords('failed for postgresql://alice:hunter2@h/d and password=hunter2')).toBe('failed for postgresql://alice@h/d and password=***');
  });
});

describe('the password file', () => {
  const file = '# comment\nother:5432:*:alice:wrong\ndb.example.com:*:team:alice:right\\:one\n*:*:*:*:fallback\n';

  it('gives the first matching line, with wildcards and escapes', () => {
    expect(pgpassLookup(file, { host: 'db.example.com', port: 6543, database: 'team', user: 'alice' })).toBe('right:one');
    expect(pgpassLookup(file, { host: 'elsewhere', port: 5432, database: 'x', user: 'bob' })).toBe('fallback');
  });

  it('matches a socket connection as localhost', () => {
    expect(pgpassLookup('localhost:5432:team:bob:sock\n', { host: '/var/run/postgresql', port: 5432, database: 'team', user: 'bob' })).toBe('sock');
    expect(pgpassLookup('', { host: 'h', port: 1, database: 'd', user: 'u' })).toBeNull();
  });
});
