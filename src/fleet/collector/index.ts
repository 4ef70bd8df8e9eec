export { startCollector, type RunningCollector } from './start-collector.js';
export { openCollectorStore, type CollectorStore } from './collector-store.js';
export { openFleetStore, parseStoreSpec, describeStore, type StoreSpec } from './open-store.js';
export type { FleetStore } from './fleet-store.js';
export type { CollectedEvent } from './collected-event.js';
