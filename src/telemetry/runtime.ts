export { createTelemetry, NOTICE, type Telemetry, type TelemetryConfig, type TelemetryDeps } from './instrument.js';
export { createOtelRecorder, type OtelRecorder } from './otel.js';
export { createPostHogSink, type EventSink } from './posthog-sink.js';
export { configPath, readTelemetryConfig, recordChoice } from './config-file.js';
export type { FlushResult } from './delivery.js';
