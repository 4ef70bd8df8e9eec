import type { Attributes } from '@opentelemetry/api';
import type { MemoryAccessVia } from './events/memory-access-rollup.js';
import { OTEL } from './otel-names.js';

/** One use of the memory surface, as OpenTelemetry records it: what was done, how many records, how long; never what. */
export interface MemorySpanInput {
  operation: 'search' | 'get' | 'timeline' | 'import' | 'export' | 'forget';
  via: MemoryAccessVia;
  /** Records returned, fetched, imported, exported or forgotten. */
  records: number;
  durationMs?: number;
  /** The one record's id, when the operation was on one record. */
  recordId?: string;
  /** A failure's kind (error.type), never its text. */
  error?: string;
}

/**
 * The GenAI semantic conventions' memory operations (open-telemetry/semantic-conventions-genai,
 * the `gen_ai.memory.client` span): `gen_ai.operation.name` is one of their values — search,
 * get, timeline and export read records (search_memory), import creates them (create_memory),
 * forget deletes them (delete_memory) — and memtrace's own operation name is kept beside it.
 * The query text and the records themselves (`gen_ai.memory.query.text`, `gen_ai.memory.records`)
 * are opt-in in the conventions and never recorded here.
 */
const OPERATION_NAME: Readonly<Record<MemorySpanInput['operation'], string>> = {
  search: 'search_memory',
  get: 'search_memory',
  timeline: 'search_memory',
  export: 'search_memory',
  import: 'create_memory',
  forget: 'delete_memory',
};

export function memorySpan(input: MemorySpanInput): {
  name: string;
  durationMs: number;
  attributes: Attributes;
  metricAttributes: Attributes;
  error: boolean;
} {
  const operation = OPERATION_NAME[input.operation];
  const common: Attributes = {
    'gen_ai.operation.name': operation,
    'gen_ai.provider.name': OTEL.memoryProvider,
    ...(input.error ? { 'error.type': input.error } : {}),
  };
  return {
    name: `${operation} ${OTEL.memoryStore}`,
    durationMs: Math.max(0, input.durationMs ?? 0),
    attributes: {
      ...common,
      'gen_ai.memory.store.id': OTEL.memoryStore,
      'gen_ai.memory.record.count': Math.max(0, Math.trunc(input.records)),
      ...(input.recordId !== undefined ? { 'gen_ai.memory.record.id': input.recordId } : {}),
      'memtrace.memory.operation': input.operation,
      'memtrace.memory.via': input.via,
    },
    metricAttributes: common,
    error: input.error !== undefined,
  };
}
