import type { HookEventKind } from '../hook-event.js';
import { definedFields, eventNameTable, sessionStartContextJson, text, type AdaptResult, type EventNameRow, type HostAdapter } from '../host-adapter.js';
import { isObject, openCodePrompt, openCodeToolFailure } from './tool-part.js';

/**
 * OpenCode 1.18's plugin hooks and bus events (AGENT-HOSTS-2.md §2), as memtrace's plugin
 * forwards them: the host's own arguments (`{input, output}` of a hook, `{event}` of a bus
 * event) plus `directory` (the instance's), `transcript_path` (the session in OpenCode's
 * SQLite store, mining/hosts/opencode-store.ts) and what the plugin joined from its per-session
 * state: `parent_session_id` for a subagent's child session, `last_assistant_message` at
 * `session.idle`, `source: resume` for a session it first saw at a message (continued in the TUI). OpenCode has no failure, Stop or per-session end hook; the plugin forwards a
 * tool part whose state is `error` (`message.part.updated`), `session.idle`, and `dispose` for
 * each open session, and a bash call's non-zero `metadata.exit` is a failure here.
 */
const NAMES: readonly EventNameRow[] = [
  ['session-start', 'session.created', 'session_start'],
  ['user-prompt-submit', 'chat.message', 'user_prompt_submit'],
  ['post-tool-use', 'tool.execute.after', 'post_tool_use'],
  ['post-tool-use-failure', 'message.part.updated', 'post_tool_use_failure'],
  ['stop', 'session.idle', 'stop'],
  ['session-end', 'dispose', 'session_end'],
];
const NAME_TABLE = eventNameTable(NAMES);

const sessionOf = (payload: Record<string, unknown>): string | null => {
  const input = isObject(payload.input) ? payload.input : {};
  const event = isObject(payload.event) ? payload.event : {};
  const properties = isObject(event.properties) ? event.properties : {};
  const info = isObject(properties.info) ? properties.info : {};
  const part = isObject(properties.part) ? properties.part : {};
  return text(input.sessionID) ?? text(properties.sessionID) ?? text(info.id) ?? text(part.sessionID) ?? text(payload.sessionID);
};

export const openCodeAdapter: HostAdapter = {
  host: 'opencode',
  // The plugin delivers in the background; only session start's context is waited for (bounded).
  blocking: new Set<HookEventKind>(['session_start']),
  ...NAME_TABLE,
  toEvent(name: string, payload: Record<string, unknown>): AdaptResult {
    const kind = NAME_TABLE.kindOf(name);
    if (!kind) return { ok: true, event: null, ignored: `OpenCode event '${name}' is not one memtrace handles` };
    const own = sessionOf(payload);
    if (!own) return { ok: false, reason: `${name} payload names no session` };
    // A subagent (the task tool) runs in a child session: its calls are the parent session's.
    const parent = text(payload.parent_session_id);
    if (parent && kind !== 'post_tool_use' && kind !== 'post_tool_use_failure')
      return { ok: true, event: null, ignored: `OpenCode ${name} of a subagent's child session` };
    const common = {
      session_id: parent ?? own,
      cwd: text(payload.directory),
      transcript_path: text(payload.transcript_path),
      platform: 'opencode',
    };
    const input = isObject(payload.input) ? payload.input : {};
    const output = isObject(payload.output) ? payload.output : {};
    const agent = parent ? { agent_id: own, agent_type: text(payload.agent_type) } : {};
    switch (kind) {
      case 'session_start': {
        const event = isObject(payload.event) ? payload.event : {};
        const info = isObject(event.properties) && isObject(event.properties.info) ? event.properties.info : {};
        return { ok: true, event: definedFields({ kind, ...common, cwd: common.cwd ?? text(info.directory), source: text(payload.source) ?? 'startup' }) };
      }
      case 'user_prompt_submit': {
        const message = isObject(output.message) ? output.message : {};
        return { ok: true, event: definedFields({ kind, ...common, prompt: openCodePrompt(output.parts), prompt_id: text(message.id) }) };
      }
      case 'post_tool_use': {
        const toolName = text(input.tool);
        if (!toolName) return { ok: false, reason: 'tool.execute.after input has no tool' };
        const tool = {
          ...common,
          ...agent,
          tool_use_id: text(input.callID),
          tool_name: toolName,
          tool_input: input.args ?? null,
          tool_response: definedFields({ title: output.title, output: output.output, metadata: output.metadata }),
        };
        const failure = openCodeToolFailure(toolName, { status: 'completed', output: output.output, metadata: output.metadata });
        if (!failure) return { ok: true, event: definedFields({ kind: 'post_tool_use' as const, ...tool }) };
        return { ok: true, event: definedFields({ kind: 'post_tool_use_failure' as const, ...tool, error: failure.error, exit_code: failure.exitCode }) };
      }
      case 'post_tool_use_failure': {
        const event = isObject(payload.event) ? payload.event : {};
        const part = isObject(event.properties) && isObject(event.properties.part) ? event.properties.part : {};
        const state = isObject(part.state) ? part.state : {};
        const toolName = text(part.tool);
        if (part.type !== 'tool' || !toolName) return { ok: true, event: null, ignored: 'an OpenCode part update that is not a tool call' };
        const failure = openCodeToolFailure(toolName, state);
        if (!failure) return { ok: true, event: null, ignored: `an OpenCode ${toolName} call that did not fail (${String(state.status)})` };
        return {
          ok: true,
          event: definedFields({
            kind,
            ...common,
            ...agent,
            tool_use_id: text(part.callID),
            tool_name: toolName,
            tool_input: state.input ?? null,
            tool_response: definedFields({ error: state.error, output: state.output, metadata: state.metadata }),
            error: failure.error,
            exit_code: failure.exitCode,
          }),
        };
      }
      case 'stop':
        return { ok: true, event: definedFields({ kind, ...common, last_assistant_message: text(payload.last_assistant_message) }) };
      case 'session_end':
        return { ok: true, event: definedFields({ kind, ...common, reason: text(payload.reason) ?? 'dispose' }) };
    }
  },
  // The plugin reads this reply and gives the text to the model as a synthetic part.
  contextOutput: sessionStartContextJson,
};
