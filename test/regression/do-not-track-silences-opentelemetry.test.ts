import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { seedShop } from '../support/memory-fixtures.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.resolve('bin/memtrace.cjs');

/**
 * The bug: DO_NOT_TRACK turned PostHog off but an OTEL_EXPORTER_OTLP_ENDPOINT in the same
 * environment still received memory spans. SPEC §4.1: DO_NOT_TRACK is above everything.
 */
describe('DO_NOT_TRACK with an OTLP endpoint configured', () => {
  const temp = makeTempDir('memtrace-dnt-otel-');
  const dataDir = path.join(temp.dir, 'data');
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  beforeAll(async () => {
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    seedShop(store);
    store.close();
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    temp.cleanup();
  });

  const search = (env: Record<string, string>) =>
    new Promise<{ status: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'search', 'coupon', '--json'],
        { encoding: 'utf8', timeout: 120_000, env: { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, ...env } },
        (error, stdout) => resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
      );
    });

  it('sends no span, while the same command without it does', async () => {
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' };
    const silenced = await search({ ...otel, DO_NOT_TRACK: '1' });
    expect(silenced.status).toBe(0);
    expect(JSON.parse(silenced.stdout).results.length).toBeGreaterThan(0);
    expect(receiver.received).toEqual([]);
    const traced = await search({ ...otel, MEMTRACE_TELEMETRY: '0' });
    expect(traced.status).toBe(0);
    expect(receiver.received.filter((x) => x.path === '/v1/traces').length).toBeGreaterThan(0);
  });
});
