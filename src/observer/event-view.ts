import type { QueuedEvent } from '../hosts/hook-event.js';
import { headTail, renderEvent, type EventView } from './event-render.js';

/** A queued tool event as the observer's prompt shows it; null for a turn's end. */
export function eventViewOf(event: QueuedEvent): EventView | null {
  if (event.kind === 'stop') return null;
  return {
    toolName: event.tool_name,
    toolInput: event.tool_input,
    toolResponse: event.tool_response,
    failure:
      event.kind === 'post_tool_use_failure' ? { error: event.error, exitCode: event.exit_code ?? null, interrupted: event.is_interrupt === true } : null,
    atMs: event.at,
    // A subagent's call is named (agent_type; its id when the host gives no type).
    subagentType: event.agent_type ?? event.agent_id ?? null,
  };
}

/** The most of a turn's last message the observer reads. */
export const LAST_MESSAGE_CHARS = 4_000;

/**
 * How many UTF-8 bytes of a queued event the observer will read (its rendered block, or a turn
 * end's last message): computed once when it is queued, it closes batches by size.
 */
export function observerBytes(event: QueuedEvent): number {
  if (event.kind === 'stop') return utf8Length(headTail(event.last_assistant_message ?? '', LAST_MESSAGE_CHARS));
  const view = eventViewOf(event);
  return view ? utf8Length(renderEvent(view, 'e1')) : 0;
}

/** UTF-8 length of a string without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair is one 4-byte character.
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}
