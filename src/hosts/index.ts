export { HOSTS, isHostName, platformOf, type HostName, type Platform } from './platforms.js';
export {
  isToolEvent,
  parseEvent,
  type HookEvent,
  type HookEventKind,
  type QueuedEvent,
  type ToolUseEvent,
} from './hook-event.js';
export { sessionStartContextJson, type AdapterDeps } from './host-adapter.js';
export { adapterDepsFor } from './adapter-deps.js';
export { adapterFor } from './registry.js';
export { fitEvent } from './fit-event.js';
