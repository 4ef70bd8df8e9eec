import { lastPiAssistantText, type PiEntry } from '../../hosts/pi/session-entries.js';
import { isObject, piContentText, piToolFailure } from '../../hosts/pi/tool-result.js';
import type { HostCall, HostTranscript } from './mined-call.js';

/**
 * pi's session file → the tool calls its extension would have delivered. Pure. A call is an
 * assistant message's `toolCall` block `{id, name, arguments}`, paired with the `toolResult`
 * message of the same `toolCallId`; the event is the `tool_result` event's: input, `{content,
 * details}` as the response, a failure when `isError` (bash with its exit code). Branches of
 * the session tree share the file: each call appears once, whichever branch holds it. A call
 * without a result (the session was killed while it ran) has not finished and is left out.
 */
export function readPiSession(entries: readonly PiEntry[], fallbackSessionId: string): HostTranscript {
  let sessionId: string | null = null;
  let cwd: string | null = null;
  let prompt: string | null = null;
  const asked = new Map<string, { name: string; input: unknown }>();
  const calls: HostCall[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const body = entry.body;
    if (entry.type === 'session') {
      if (typeof body.id === 'string') sessionId ??= body.id;
      if (typeof body.cwd === 'string') cwd ??= body.cwd;
      continue;
    }
    if (entry.type !== 'message') continue;
    if (body.role === 'user' && prompt === null) {
      const said = piContentText(body.content).trim();
      if (said !== '') prompt = said;
    } else if (body.role === 'assistant' && Array.isArray(body.content)) {
      for (const block of body.content) {
        if (isObject(block) && block.type === 'toolCall' && typeof block.id === 'string' && typeof block.name === 'string')
          asked.set(block.id, { name: block.name, input: block.arguments ?? null });
      }
    } else if (body.role === 'toolResult' && typeof body.toolCallId === 'string' && !seen.has(body.toolCallId)) {
      const call = asked.get(body.toolCallId);
      const toolName = typeof body.toolName === 'string' ? body.toolName : call?.name;
      if (!toolName) continue;
      seen.add(body.toolCallId);
      const at = Date.parse(entry.timestamp ?? '');
      const response: Record<string, unknown> = { content: body.content ?? null };
      if (body.details !== undefined) response.details = body.details;
      calls.push({
        toolUseId: body.toolCallId,
        alsoKnownAs: [],
        toolName,
        toolInput: call?.input ?? null,
        toolResponse: response,
        failure: piToolFailure(toolName, body.isError === true, body.content),
        atMs: Number.isFinite(at) ? at : null,
      });
    }
  }
  return { sessionId: sessionId ?? fallbackSessionId, calls, prompt, cwd, lastAssistantText: lastPiAssistantText(entries) };
}
