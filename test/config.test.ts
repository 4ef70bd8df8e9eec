import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../src/config.js';

describe('loadWorkerConfig', () => {
  it('defaults to ~/.memtrace and port 37877 (only a default: another port when it is taken)', () => {
    expect(loadWorkerConfig({}, '/home/u')).toEqual({
      ok: true,
      config: {
        dataDir: '/home/u/.memtrace',
        dbFile: '/home/u/.memtrace/memtrace.db',
        port: 37877,
        portIsDefault: true,
        providerTimeoutMs: 60_000,
        rawRetentionDays: 30,
        maxDbMb: 2048,
        observerBudgetTokens: 1_000_000,
      },
    });
  });

  it('reads MEMTRACE_DATA_DIR with ~ and MEMTRACE_PORT, and a flag wins over the env', () => {
    const r = loadWorkerConfig({ MEMTRACE_DATA_DIR: '~/mt', MEMTRACE_PORT: '0' }, '/home/u', { port: 5000 });
    expect(r).toEqual({
      ok: true,
      config: {
        dataDir: '/home/u/mt',
        dbFile: '/home/u/mt/memtrace.db',
        port: 5000,
        portIsDefault: false,
        providerTimeoutMs: 60_000,
        rawRetentionDays: 30,
        maxDbMb: 2048,
        observerBudgetTokens: 1_000_000,
      },
    });
    expect(loadWorkerConfig({ MEMTRACE_PORT: '0' }, '/h')).toMatchObject({ config: { port: 0, portIsDefault: false } });
    // A port the user set is theirs to insist on, even the default number.
    expect(loadWorkerConfig({ MEMTRACE_PORT: '37877' }, '/h')).toMatchObject({ config: { port: 37877, portIsDefault: false } });
    expect(loadWorkerConfig({ MEMTRACE_PORT: '' }, '/h')).toMatchObject({ config: { port: 37877, portIsDefault: true } });
  });

  it('reads MEMTRACE_PROVIDER_TIMEOUT_MS and names it when it is out of range', () => {
    expect(loadWorkerConfig({ MEMTRACE_PROVIDER_TIMEOUT_MS: '5000' }, '/h')).toMatchObject({ config: { providerTimeoutMs: 5000 } });
    expect(loadWorkerConfig({ MEMTRACE_PROVIDER_TIMEOUT_MS: '10' }, '/h')).toEqual({
      ok: false,
      errors: ['MEMTRACE_PROVIDER_TIMEOUT_MS=10 must be a whole number of milliseconds between 1000 and 3600000'],
    });
  });

  it('names the variable when the port is not a port', () => {
    expect(loadWorkerConfig({ MEMTRACE_PORT: '99999' }, '/h')).toEqual({
      ok: false,
      errors: ['MEMTRACE_PORT=99999 is not a port number (0-65535; 0 picks a free port)'],
    });
  });

  it('reads MEMTRACE_RAW_RETENTION_DAYS and MEMTRACE_MAX_DB_MB, and names either when it is not a number in range', () => {
    expect(loadWorkerConfig({ MEMTRACE_RAW_RETENTION_DAYS: '0', MEMTRACE_MAX_DB_MB: '64' }, '/h')).toMatchObject({
      config: { rawRetentionDays: 0, maxDbMb: 64 },
    });
    expect(loadWorkerConfig({ MEMTRACE_RAW_RETENTION_DAYS: '-1' }, '/h')).toEqual({
      ok: false,
      errors: ['MEMTRACE_RAW_RETENTION_DAYS=-1 must be a whole number of days between 0 and 36500'],
    });
    expect(loadWorkerConfig({ MEMTRACE_MAX_DB_MB: '2GB' }, '/h')).toEqual({
      ok: false,
      errors: ['MEMTRACE_MAX_DB_MB=2GB must be a whole number of MiB between 1 and 16777216'],
    });
  });

  it('reads MEMTRACE_OBSERVER_BUDGET_TOKENS: 0 observes nothing, a budget too small for one call is refused by name', () => {
    expect(loadWorkerConfig({ MEMTRACE_OBSERVER_BUDGET_TOKENS: '250000' }, '/h')).toMatchObject({ config: { observerBudgetTokens: 250_000 } });
    expect(loadWorkerConfig({ MEMTRACE_OBSERVER_BUDGET_TOKENS: '0' }, '/h')).toMatchObject({ config: { observerBudgetTokens: 0 } });
    expect(loadWorkerConfig({ MEMTRACE_OBSERVER_BUDGET_TOKENS: '5000' }, '/h')).toEqual({
      ok: false,
      errors: ['MEMTRACE_OBSERVER_BUDGET_TOKENS=5000 must be 0 (observe nothing) or at least 200000 tokens (the largest single observer call)'],
    });
    expect(loadWorkerConfig({ MEMTRACE_OBSERVER_BUDGET_TOKENS: 'lots' }, '/h')).toMatchObject({ ok: false });
  });
});
