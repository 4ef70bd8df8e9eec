export { createTelemetry, NOTICE, type Telemetry } from './instrument.js';
export { startOtel } from './otel.js';
export { createPostHogSink, type EventSink } from './posthog-sink.js';
export { readTelemetryConfig, recordChoice } from './config-file.js';
