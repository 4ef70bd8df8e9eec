/** Every OpenTelemetry name memtrace emits, in one place. */
export const OTEL = {
  meter: 'memtrace',
  tracer: 'memtrace',
  turns: 'memtrace.observer.turns',
  observations: 'memtrace.observer.observations',
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  span: 'chat',
  /** The memory surface as a GenAI memory store (gen_ai.provider.name and gen_ai.memory.store.id of memory spans). */
  memoryProvider: 'memtrace',
  memoryStore: 'memtrace',
} as const;
