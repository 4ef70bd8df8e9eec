import type { Attributes } from '@opentelemetry/api';
import type { TurnRecord } from '../observer/turn-record.js';
import { memorySpan, type MemorySpanInput } from './memory-spans.js';
import { normalizeModelId } from './model-id.js';
import { otelConfigFromEnv, type OtelConfig, type OtelExporter } from './otel-config.js';
import { OTEL } from './otel-names.js';

export interface OtelRecorder {
  recordTurn(turn: TurnRecord, nowMs: number): void;
  /** A GenAI memory-operation span (search, get, import, export, forget): counts and ids, never content. */
  recordMemory(input: MemorySpanInput, nowMs: number): void;
  /** Exports what is pending and stops; bounded by the exporters' timeout. */
  shutdown(): Promise<void>;
}

type Warn = (message: string) => void;

let running: Promise<OtelRecorder | null> | null = null;

/**
 * OpenTelemetry through the SDK's NodeSDK, configured by the standard OTEL_* variables
 * (otel-config.ts), once per process: null when they ask for nothing. Exporters and readers are
 * passed explicitly and resources are not detected (the default detectors record the user name
 * and command line); no log exporter and no propagator are set up, so the SDK never falls back
 * to its own defaults (an OTLP endpoint on localhost). The SDK is loaded only when asked for.
 * What is still pending when the process runs out of work is exported before it exits.
 */
export function startOtel(env: Record<string, string | undefined>, appVersion: string, warn: Warn = () => undefined): Promise<OtelRecorder | null> {
  const config = otelConfigFromEnv(env, appVersion);
  for (const w of config?.warnings ?? []) warn(w);
  if (config === null || (config.traces.length === 0 && config.metrics.length === 0)) return Promise.resolve(null);
  running ??= start(config, appVersion).catch((error: unknown) => {
    warn(`OpenTelemetry could not start: ${error instanceof Error ? error.message : String(error)}`);
    running = null;
    return null;
  });
  return running;
}

async function start(config: OtelConfig, appVersion: string): Promise<OtelRecorder> {
  const [api, { NodeSDK }, resources, traceBase, sdkMetrics] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-metrics'),
  ]);
  const spanExporter = async (e: OtelExporter) => {
    if (e.kind === 'console') return new traceBase.ConsoleSpanExporter();
    const options = { url: e.url, headers: e.headers, timeoutMillis: e.timeoutMs };
    if (e.protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options);
    return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options);
  };
  const metricExporter = async (e: OtelExporter) => {
    if (e.kind === 'console') return new sdkMetrics.ConsoleMetricExporter();
    const options = { url: e.url, headers: e.headers, timeoutMillis: e.timeoutMs };
    if (e.protocol === 'http/json') return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter(options);
    return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter(options);
  };
  const spanProcessors = await Promise.all(config.traces.map(async (e) => new traceBase.BatchSpanProcessor(await spanExporter(e))));
  const metricReaders = await Promise.all(
    config.metrics.map(
      async (e) => new sdkMetrics.PeriodicExportingMetricReader({ exporter: await metricExporter(e), exportIntervalMillis: config.metricIntervalMs }),
    ),
  );
  const sdk = new NodeSDK({
    resource: resources.defaultResource().merge(resources.resourceFromAttributes(config.resource)),
    autoDetectResources: false,
    spanProcessors,
    metricReaders,
    logRecordProcessors: [],
    instrumentations: [],
    textMapPropagator: null,
  });
  sdk.start();
  const tracer = api.trace.getTracer(OTEL.tracer, appVersion);
  const meter = api.metrics.getMeter(OTEL.meter, appVersion);
  const turns = meter.createCounter(OTEL.turns, { description: 'observer turns by outcome and class' });
  const observations = meter.createCounter(OTEL.observations, { description: 'observations stored by type' });
  const tokens = meter.createHistogram(OTEL.tokenUsage, { unit: '{token}', description: 'tokens per observer call' });
  const duration = meter.createHistogram(OTEL.operationDuration, { unit: 's', description: 'observer call duration' });

  let stopped: Promise<void> | null = null;
  const shutdown = () => {
    stopped ??= (async () => {
      process.removeListener('beforeExit', onBeforeExit);
      await sdk.shutdown().catch(() => undefined);
      // Unregistered, so a later start in this process (tests, a restarted worker) registers its own.
      api.trace.disable();
      api.metrics.disable();
      api.context.disable();
      running = null;
    })();
    return stopped;
  };
  const onBeforeExit = () => void shutdown();
  process.once('beforeExit', onBeforeExit);

  return {
    recordTurn(turn, nowMs) {
      const model = normalizeModelId(turn.model);
      const genAi: Attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.system': turn.provider, 'gen_ai.request.model': model };
      turns.add(1, { outcome: turn.outcome, class: turn.outputClass ?? 'none', ...(turn.abortReason ? { abort_reason: turn.abortReason } : {}) });
      for (const [type, n] of Object.entries(turn.observationsByType)) if (n) observations.add(n, { type });
      if (turn.tokens) {
        tokens.record(turn.tokens.input, { ...genAi, 'gen_ai.token.type': 'input' });
        tokens.record(turn.tokens.output, { ...genAi, 'gen_ai.token.type': 'output' });
      }
      duration.record(turn.durationMs / 1000, { ...genAi, ...(turn.abortReason ? { 'error.type': turn.abortReason } : {}) });
      const span = tracer.startSpan(`${OTEL.span} ${model}`, {
        startTime: nowMs - turn.durationMs,
        attributes: {
          ...genAi,
          ...(turn.tokens ? { 'gen_ai.usage.input_tokens': turn.tokens.input, 'gen_ai.usage.output_tokens': turn.tokens.output } : {}),
          'memtrace.outcome': turn.outcome,
        },
      });
      span.end(nowMs);
    },
    recordMemory(input, nowMs) {
      const s = memorySpan(input);
      const span = tracer.startSpan(s.name, { kind: api.SpanKind.CLIENT, startTime: nowMs - s.durationMs, attributes: s.attributes });
      if (s.error) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end(nowMs);
      // The GenAI client duration metric covers every operation, memory operations included.
      duration.record(s.durationMs / 1000, s.metricAttributes);
    },
    shutdown,
  };
}
