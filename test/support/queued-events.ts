import type { QueuedEvent, ToolUseEvent } from '../../src/hosts/index.js';

/** A queued tool event for store-level tests: a Read of nothing in particular, unless told otherwise. */
export function queuedToolUse(
  sessionId: string,
  fields: Partial<Omit<ToolUseEvent, 'kind'>> & { at?: number } = {},
): Extract<QueuedEvent, { kind: 'post_tool_use' }> {
  return { kind: 'post_tool_use', session_id: sessionId, tool_name: 'Read', tool_input: {}, tool_response: {}, at: 1, ...fields };
}
