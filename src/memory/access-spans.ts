import { otelConfigFromEnv } from '../telemetry/otel-config.js';
import { startOtel } from '../telemetry/otel.js';
import type { MemorySpanInput } from '../telemetry/memory-spans.js';
import { APP_VERSION } from '../version.js';
import type { MemoryAccess, MemoryAccessSink } from './access-counters.js';

/** An access as a memory-operation span's input: counts and durations only, as the rollup keeps them. */
function spanInput(via: MemorySpanInput['via'], access: MemoryAccess): MemorySpanInput {
  const durationMs = 'durationMs' in access ? access.durationMs : undefined;
  const timed = durationMs === undefined ? {} : { durationMs };
  switch (access.kind) {
    case 'search':
      return { operation: 'search', via, records: access.results, ...timed };
    case 'fetch':
      return {
        operation: 'get',
        via,
        records: access.observations,
        ...timed,
        ...(access.observations === 1 && access.id !== undefined ? { recordId: access.id } : {}),
      };
    case 'timeline':
      return { operation: 'timeline', via, records: access.items ?? 0, ...timed };
    case 'export':
      return { operation: 'export', via, records: access.items, ...timed };
    case 'import':
      return { operation: 'import', via, records: access.imported, ...timed, ...(access.invalid > 0 ? { error: 'invalid_lines' } : {}) };
    case 'forget':
      return { operation: 'forget', via, records: access.items, ...timed };
  }
}

/**
 * The memory surface's accesses also as OpenTelemetry GenAI memory-operation spans, when the
 * OTEL_* variables ask for an exporter (telemetry/otel-config.ts); otherwise the sink as it is,
 * and the SDK is never loaded. Wraps the sink every face already reports to, so the memory
 * library itself stays free of OpenTelemetry.
 */
export function withMemorySpans(sink: MemoryAccessSink, env: Record<string, string | undefined>): MemoryAccessSink {
  if (otelConfigFromEnv(env, APP_VERSION) === null) return sink;
  const otel = startOtel(env, APP_VERSION);
  return {
    ...sink,
    record(via, access, nowMs) {
      sink.record(via, access, nowMs);
      void otel.then((recorder) => recorder?.recordMemory(spanInput(via, access), nowMs)).catch(() => undefined);
    },
  };
}
