import { describe, expect, it } from 'vitest';
import { useMemoryCliWithReceiver } from '../support/memory-cli.js';

/**
 * The bug: DO_NOT_TRACK turned PostHog off but an OTEL_EXPORTER_OTLP_ENDPOINT in the same
 * environment still received memory spans. DO_NOT_TRACK is above everything (docs/telemetry.md).
 */
describe('DO_NOT_TRACK with an OTLP endpoint configured', () => {
  const cli = useMemoryCliWithReceiver('memtrace-dnt-otel-');

  it('sends no span, while the same command without it does', async () => {
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: cli.receiver().url, OTEL_METRICS_EXPORTER: 'none' };
    const silenced = await cli.run(['search', 'coupon', '--json'], { ...otel, DO_NOT_TRACK: '1' });
    expect(silenced.status, silenced.stderr).toBe(0);
    expect(JSON.parse(silenced.stdout).results.length).toBeGreaterThan(0);
    expect(cli.receiver().received).toEqual([]);
    const traced = await cli.run(['search', 'coupon', '--json'], { ...otel, MEMTRACE_TELEMETRY: '0' });
    expect(traced.status, traced.stderr).toBe(0);
    expect(cli.receiver().received.filter((x) => x.path === '/v1/traces').length).toBeGreaterThan(0);
  });
});
