import { geminiToolFailure } from '../../hosts/gemini-cli/adapter.js';
import type { ChatFile, ChatToolCall } from '../../hosts/gemini-cli/chat-records.js';
import { lastModelText } from '../../hosts/gemini-cli/chat-records.js';
import { geminiToolUseId } from '../../hosts/gemini-cli/tool-use-id.js';
import type { HostCall, HostTranscript } from './mined-call.js';

/**
 * Gemini CLI's chat file → the tool calls its hooks would have delivered. Pure. Each finished
 * call of a model turn (`toolCalls[]` with a `status`) becomes one event: the hook's
 * `tool_response` is rebuilt from the call's function response (`llmContent`) and its
 * `resultDisplay` (`returnDisplay`), so failures are derived the same way (a tool error, or a
 * shell command's non-zero `Exit Code`). The id is the one the AfterTool hook derives from the
 * same model turn (tool-use-id.ts); the transcript's own call id is the other name it may have.
 */
const SESSION_CONTEXT = /^\s*<session_context>/;
const HOOK_CONTEXT = /^(?:\s*<hook_context>[\s\S]*?<\/hook_context>)+\s*/;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What the model was sent for the call: its function response's output, or its error. */
function responseOf(call: ChatToolCall): { llmContent: string; error: string | null } {
  const parts = Array.isArray(call.result) ? call.result : [];
  const outputs: string[] = [];
  let error: string | null = null;
  for (const part of parts) {
    const response = isObject(part) && isObject(part.functionResponse) && isObject(part.functionResponse.response) ? part.functionResponse.response : null;
    if (!response) continue;
    if (typeof response.output === 'string') outputs.push(response.output);
    if (typeof response.error === 'string') error = response.error;
  }
  return { llmContent: outputs.join('\n'), error };
}

function hostCallOf(sessionId: string, turn: { id: string; timestamp: string | null }, call: ChatToolCall): HostCall {
  const { llmContent, error } = responseOf(call);
  const toolResponse: Record<string, unknown> = { llmContent, returnDisplay: call.resultDisplay ?? '' };
  if (error !== null || call.status === 'error') toolResponse.error = { message: error ?? 'the tool reported an error' };
  const at = Date.parse(call.timestamp ?? turn.timestamp ?? '');
  return {
    toolUseId: geminiToolUseId({ sessionId, turnId: turn.id, time: turn.timestamp, toolName: call.name, toolInput: call.args }),
    alsoKnownAs: [call.id],
    toolName: call.name,
    toolInput: call.args,
    toolResponse,
    failure: geminiToolFailure(call.name, toolResponse),
    atMs: Number.isFinite(at) ? at : null,
  };
}

export function readGeminiChat(file: ChatFile, fallbackSessionId: string, cwd: string | null): HostTranscript {
  const sessionId = file.sessionId ?? fallbackSessionId;
  const calls: HostCall[] = [];
  let prompt: string | null = null;
  for (const record of file.records) {
    if (record.type === 'user' && prompt === null && record.toolCalls.length === 0) {
      const text = record.text.replace(HOOK_CONTEXT, '').trim();
      if (text !== '' && !SESSION_CONTEXT.test(record.text)) prompt = text;
    }
    if (record.type !== 'gemini') continue;
    // A call without a status has not finished (the session is still running, or was cut off).
    for (const call of record.toolCalls) if (call.status !== null) calls.push(hostCallOf(sessionId, record, call));
  }
  return { sessionId, calls, prompt, cwd, lastAssistantText: lastModelText(file) };
}
