export { startCollector, type CollectorOptions, type RunningCollector } from './start-collector.js';
export { openCollectorStore, type CollectorStore } from './collector-store.js';
export type { CollectedEvent } from './collected-event.js';
export { decodeCaptureBody, MAX_CAPTURE_BYTES, type DecodeResult } from './capture-body.js';
export { createCollectorApp, CAPTURE_PATHS } from './collector-app.js';
