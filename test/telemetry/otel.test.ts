import { afterEach, describe, expect, it } from 'vitest';
import { otelConfigFromEnv } from '../../src/telemetry/otel-config.js';
import { startOtel, type OtelRecorder } from '../../src/telemetry/otel.js';
import { decodeMetricNames, decodeTraces } from '../support/otlp-decode.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';

const turn = {
  sessionId: 's',
  provider: 'anthropic',
  model: 'claude-haiku-4-5-20251001',
  outcome: 'ok',
  outputClass: 'xml',
  abortReason: null,
  observationsByType: { bugfix: 1 },
  tokens: { input: 100, output: 20 },
  durationMs: 250,
} as unknown as Parameters<OtelRecorder['recordTurn']>[0];

describe('OpenTelemetry configured by its own variables', () => {
  it('sends nothing anywhere when no variable asks for an exporter (not the SDK default of localhost:4318)', async () => {
    expect(otelConfigFromEnv({}, '1.0.0')).toBeNull();
    expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'x', OTEL_RESOURCE_ATTRIBUTES: 'a=b' }, '1.0.0')).toBeNull();
    expect(await startOtel({}, '1.0.0')).toBeNull();
  });

  it('is off with OTEL_SDK_DISABLED=true whatever else is set', () => {
    expect(
      otelConfigFromEnv({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_TRACES_EXPORTER: 'console' }, '1'),
    ).toBeNull();
  });

  it('is off under DO_NOT_TRACK whatever OTel variables ask for, and says so once when they asked', async () => {
    const asked = { DO_NOT_TRACK: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_TRACES_EXPORTER: 'console' };
    expect(otelConfigFromEnv(asked, '1')).toMatchObject({ traces: [], metrics: [], warnings: ['DO_NOT_TRACK is set: OpenTelemetry export is off too'] });
    const warnings: string[] = [];
    expect(await startOtel(asked, '1', (w) => warnings.push(w))).toBeNull();
    expect(warnings).toEqual(['DO_NOT_TRACK is set: OpenTelemetry export is off too']);
    expect(otelConfigFromEnv({ DO_NOT_TRACK: 'yes' }, '1')).toBeNull();
    // "0", "false" and empty do not opt out, as for PostHog.
    for (const dnt of ['0', 'false', ''])
      expect(otelConfigFromEnv({ DO_NOT_TRACK: dnt, OTEL_TRACES_EXPORTER: 'console' }, '1')?.traces).toEqual([{ kind: 'console' }]);
  });

  it('reads exporters, protocols, endpoints, headers and resource attributes as the specification documents them', () => {
    const config = otelConfigFromEnv(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc%3D%3D,team=fleet%20a',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_TRACES_EXPORTER: 'otlp,console',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci,service.name=ignored',
        OTEL_SERVICE_NAME: 'memtrace-ci',
      },
      '9.9.9',
    )!;
    expect(config.traces).toEqual([
      { kind: 'otlp', protocol: 'http/protobuf', url: 'http://collector:4318/v1/traces', headers: { 'api-key': 'abc==', team: 'fleet a' }, timeoutMs: 10_000 },
      { kind: 'console' },
    ]);
    expect(config.metrics).toEqual([
      { kind: 'otlp', protocol: 'http/json', url: 'http://collector:4318/v1/metrics', headers: { 'api-key': 'abc==', team: 'fleet a' }, timeoutMs: 10_000 },
    ]);
    expect(config.resource).toEqual({ 'service.name': 'memtrace-ci', 'service.version': '9.9.9', 'deployment.environment': 'ci' });
    expect(config.warnings).toEqual([]);
  });

  it('takes a signal endpoint as it is, turns a signal off with none, and says why grpc is not used', () => {
    const config = otelConfigFromEnv(
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/custom', OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:2' },
      '1',
    )!;
    expect(config.traces).toMatchObject([{ url: 'http://t:1/custom' }]);
    expect(config.metrics).toEqual([]);
    const grpc = otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, '1')!;
    expect(grpc.traces).toEqual([]);
    expect(grpc.warnings[0]).toMatch(/exports OTLP over HTTP only/);
  });
});

describe('what reaches an OTLP receiver', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>> | undefined;
  let recorder: OtelRecorder | null = null;
  afterEach(async () => {
    await recorder?.shutdown();
    recorder = null;
    await receiver?.close();
  });

  it('is protobuf (decoded with the official OTLP definitions) with the headers, the resource and GenAI memory spans holding counts and ids only', async () => {
    receiver = await startOtlpReceiver();
    recorder = await startOtel(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-fleet=memtrace%20test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci',
        OTEL_SERVICE_NAME: 'memtrace-under-test',
      },
      '0.3.0',
    );
    expect(recorder).not.toBeNull();
    const now = Date.now();
    recorder!.recordTurn(turn, now);
    recorder!.recordMemory({ operation: 'search', via: 'mcp', records: 3, durationMs: 12 }, now);
    recorder!.recordMemory({ operation: 'get', via: 'viewer', records: 1, recordId: '42' }, now);
    recorder!.recordMemory({ operation: 'import', via: 'cli', records: 7, error: 'invalid_lines' }, now);
    recorder!.recordMemory({ operation: 'export', via: 'cli', records: 9 }, now);
    recorder!.recordMemory({ operation: 'forget', via: 'cli', records: 2 }, now);
    await recorder!.shutdown();
    recorder = null;

    const traces = receiver.received.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    for (const r of receiver.received) {
      expect(r.headers['content-type']).toBe('application/x-protobuf');
      expect(r.headers['x-fleet']).toBe('memtrace test');
    }
    const spans = traces.flatMap((r) => decodeTraces(r.body));
    const memory = spans.filter((s) => String(s.attributes['gen_ai.operation.name']).endsWith('_memory'));
    expect(
      memory.map((s) => [
        s.name,
        s.kind,
        s.attributes['gen_ai.operation.name'],
        s.attributes['memtrace.memory.operation'],
        s.attributes['gen_ai.memory.record.count'],
      ]),
    ).toEqual([
      ['search_memory memtrace', 'SPAN_KIND_CLIENT', 'search_memory', 'search', 3],
      ['search_memory memtrace', 'SPAN_KIND_CLIENT', 'search_memory', 'get', 1],
      ['create_memory memtrace', 'SPAN_KIND_CLIENT', 'create_memory', 'import', 7],
      ['search_memory memtrace', 'SPAN_KIND_CLIENT', 'search_memory', 'export', 9],
      ['delete_memory memtrace', 'SPAN_KIND_CLIENT', 'delete_memory', 'forget', 2],
    ]);
    expect(memory[1]!.attributes['gen_ai.memory.record.id']).toBe('42');
    expect(memory[2]!.attributes['error.type']).toBe('invalid_lines');
    for (const s of memory) {
      expect(s.attributes['gen_ai.provider.name']).toBe('memtrace');
      expect(s.attributes['gen_ai.memory.store.id']).toBe('memtrace');
      expect(Object.keys(s.attributes).filter((k) => /query|records$|content/.test(k))).toEqual([]);
    }
    expect(spans.find((s) => s.attributes['gen_ai.operation.name'] === 'chat')?.attributes['gen_ai.request.model']).toBe('claude-haiku-4-5-20251001');
    const resource = spans[0]!.resource;
    expect(resource).toMatchObject({ 'service.name': 'memtrace-under-test', 'service.version': '0.3.0', 'deployment.environment': 'ci' });
    // Resources are not detected: no host, user, process or command line.
    expect(Object.keys(resource).filter((k) => /^(host|process|os)\./.test(k))).toEqual([]);
    const metrics = receiver.received.filter((r) => r.path === '/v1/metrics').flatMap((r) => decodeMetricNames(r.body));
    expect(metrics).toEqual(expect.arrayContaining(['gen_ai.client.operation.duration', 'memtrace.observer.turns']));
  });

  it('is JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json', async () => {
    receiver = await startOtlpReceiver();
    recorder = await startOtel({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRICS_EXPORTER: 'none' }, '0.3.0');
    recorder!.recordMemory({ operation: 'search', via: 'cli', records: 0 }, Date.now());
    await recorder!.shutdown();
    recorder = null;
    expect(receiver.received.map((r) => r.path)).toEqual(['/v1/traces']);
    const body = JSON.parse(receiver.received[0]!.body.toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string }> }> }> };
    expect(body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.name).toBe('search_memory memtrace');
  });
});
