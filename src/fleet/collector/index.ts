export { startCollector, type RunningCollector } from './start-collector.js';
export { openCollectorStore, type CollectorStore } from './collector-store.js';
export type { CollectedEvent } from './collected-event.js';
