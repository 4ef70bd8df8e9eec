import type { HookEventKind } from '../hook-event.js';
import {
  definedFields,
  eventNameTable,
  sessionStartContextJson,
  text,
  type AdaptResult,
  type AdapterDeps,
  type EventNameRow,
  type HostAdapter,
} from '../host-adapter.js';
import { isObject, piToolFailure } from './tool-result.js';

/**
 * pi 0.73's extension events (AGENT-HOSTS-2.md §4), as memtrace's extension forwards them:
 * `{event, ctx}` where `event` is pi's own event (without what memtrace does not read: the
 * system prompt, the conversation) and `ctx` the facts the extension read from its context
 * (`cwd`, `sessionId`, `sessionFile`, `model`); at `agent_end` the extension adds
 * `last_assistant_message` (the run's last assistant text). pi reports a failed tool, and a
 * shell that exits non-zero, as `tool_result` with `isError: true`.
 */
const NAMES: readonly EventNameRow[] = [
  ['session-start', 'session_start', 'session_start'],
  ['user-prompt-submit', 'before_agent_start', 'user_prompt_submit'],
  ['post-tool-use', 'tool_result', 'post_tool_use'],
  ['stop', 'agent_end', 'stop'],
  ['session-end', 'session_shutdown', 'session_end'],
];
const NAME_TABLE = eventNameTable(NAMES);

export const piAdapter: HostAdapter = {
  host: 'pi',
  // The extension delivers in the background; only session start's context is waited for (bounded).
  blocking: new Set<HookEventKind>(['session_start']),
  ...NAME_TABLE,
  toEvent(name: string, payload: Record<string, unknown>, deps: AdapterDeps): AdaptResult {
    const kind = NAME_TABLE.kindOf(name);
    if (!kind) return { ok: true, event: null, ignored: `pi event '${name}' is not one memtrace handles` };
    const ctx = isObject(payload.ctx) ? payload.ctx : {};
    const event = isObject(payload.event) ? payload.event : {};
    const sessionId = text(ctx.sessionId);
    if (!sessionId) return { ok: false, reason: `${name} payload names no session (ctx.sessionId)` };
    const common = { session_id: sessionId, cwd: text(ctx.cwd), transcript_path: text(ctx.sessionFile), platform: 'pi' };
    switch (kind) {
      case 'session_start':
        return { ok: true, event: definedFields({ kind, ...common, source: text(event.reason), model: text(ctx.model) }) };
      case 'user_prompt_submit':
        return { ok: true, event: definedFields({ kind, ...common, prompt: text(event.prompt) }) };
      case 'post_tool_use':
      case 'post_tool_use_failure': {
        const toolName = text(event.toolName);
        if (!toolName) return { ok: false, reason: `${name} event has no toolName` };
        const tool = {
          ...common,
          tool_use_id: text(event.toolCallId),
          tool_name: toolName,
          tool_input: event.input ?? null,
          tool_response: definedFields({ content: event.content, details: event.details }),
        };
        const failure = piToolFailure(toolName, event.isError === true, event.content);
        if (!failure) return { ok: true, event: definedFields({ kind: 'post_tool_use' as const, ...tool }) };
        return { ok: true, event: definedFields({ kind: 'post_tool_use_failure' as const, ...tool, error: failure.error, exit_code: failure.exitCode }) };
      }
      case 'stop': {
        const last = text(payload.last_assistant_message) ?? (common.transcript_path ? (deps.lastAssistantText?.(common.transcript_path) ?? null) : null);
        return { ok: true, event: definedFields({ kind, ...common, last_assistant_message: last }) };
      }
      case 'session_end':
        return { ok: true, event: definedFields({ kind, ...common, reason: text(event.reason) }) };
    }
  },
  // The extension reads this reply and gives the text to the model as a custom message.
  contextOutput: sessionStartContextJson,
};
