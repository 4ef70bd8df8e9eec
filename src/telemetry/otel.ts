import type { Attributes } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TurnRecord } from '../observer/turn-record.js';
import { normalizeModelId } from './model-id.js';
import { OTEL } from './otel-names.js';

export interface OtelRecorder {
  recordTurn(turn: TurnRecord, nowMs: number): void;
  shutdown(): Promise<void>;
}

/**
 * On only with OTEL_EXPORTER_OTLP_ENDPOINT. Exporters are passed explicitly and resources are
 * not auto-detected (the default detectors record the user name and command line). Attributes
 * come from enums and normalised model ids only: no content.
 */
export function createOtelRecorder(env: Record<string, string | undefined>, appVersion: string): OtelRecorder | null {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim().replace(/\/+$/, '');
  if (!endpoint) return null;
  const resource = resourceFromAttributes({ 'service.name': 'memtrace', 'service.version': appVersion });
  const reader = new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: `${endpoint}/v1/metrics` }), exportIntervalMillis: 15_000 });
  const meterProvider = new MeterProvider({ resource, readers: [reader] });
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }))],
  });
  const meter = meterProvider.getMeter(OTEL.meter, appVersion);
  const tracer = tracerProvider.getTracer(OTEL.tracer, appVersion);
  const turns = meter.createCounter(OTEL.turns, { description: 'observer turns by outcome and class' });
  const observations = meter.createCounter(OTEL.observations, { description: 'observations stored by type' });
  const tokens = meter.createHistogram(OTEL.tokenUsage, { unit: '{token}', description: 'tokens per observer call' });
  const duration = meter.createHistogram(OTEL.operationDuration, { unit: 's', description: 'observer call duration' });
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
    async shutdown() {
      await Promise.allSettled([meterProvider.shutdown(), tracerProvider.shutdown()]);
    },
  };
}
