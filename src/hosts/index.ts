export { HOSTS, PLATFORMS, isHostName, platformOf, type HostName, type Platform } from './platforms.js';
export {
  EVENT_FIELDS,
  HOOK_EVENT_KINDS,
  MAX_EVENT_TEXT,
  isToolEvent,
  parseEvent,
  type EventParse,
  type HookEvent,
  type HookEventKind,
  type QueuedEvent,
  type SessionEndEvent,
  type SessionStartEvent,
  type StopEvent,
  type ToolEvent,
  type ToolFailureEvent,
  type ToolUseEvent,
  type UserPromptEvent,
} from './hook-event.js';
export { sessionStartContextJson, type AdaptResult, type AdapterDeps, type HostAdapter, type ModelTurn } from './host-adapter.js';
export { adapterDepsFor, lastAssistantTextFor } from './adapter-deps.js';
export { adapterFor } from './registry.js';
export { fitPayload, STORED_EVENT_MAX_CHARS } from './fit-payload.js';
export { fitEvent } from './fit-event.js';
