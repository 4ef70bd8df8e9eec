export { startCollector, type RunningCollector } from './start-collector.js';
export { openCollectorStore, type CollectorStore, type CollectedEvent } from './collector-store.js';
export { decodeCaptureBody, MAX_CAPTURE_BYTES } from './capture-body.js';
export { createCollectorApp } from './collector-app.js';
