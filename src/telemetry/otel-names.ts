/** Every OpenTelemetry name memtrace emits, in one place. */
export const OTEL = {
  meter: 'memtrace',
  tracer: 'memtrace',
  turns: 'memtrace.observer.turns',
  observations: 'memtrace.observer.observations',
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  span: 'chat',
} as const;
