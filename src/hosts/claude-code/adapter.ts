import type { HookEventKind } from '../hook-event.js';
import {
  definedFields,
  eventNameTable,
  sessionStartContextJson,
  text,
  wholeMs,
  type AdaptResult,
  type AdapterDeps,
  type EventNameRow,
  type HostAdapter,
} from '../host-adapter.js';

/**
 * Claude Code's hook payloads (docs/claude-code-e2e.md): session_id, transcript_path and cwd on
 * every event; prompt/prompt_id (UserPromptSubmit); tool_name, tool_input, tool_response,
 * tool_use_id, duration_ms, agent_id and agent_type when a subagent made the call (PostToolUse); error, is_interrupt (PostToolUseFailure);
 * source, model (SessionStart); last_assistant_message (Stop, since 2.1.47); reason (SessionEnd).
 */
const NAMES: readonly EventNameRow[] = [
  ['session-start', 'SessionStart', 'session_start'],
  ['user-prompt-submit', 'UserPromptSubmit', 'user_prompt_submit'],
  ['post-tool-use', 'PostToolUse', 'post_tool_use'],
  ['post-tool-use-failure', 'PostToolUseFailure', 'post_tool_use_failure'],
  ['stop', 'Stop', 'stop'],
  ['session-end', 'SessionEnd', 'session_end'],
];
const NAME_TABLE = eventNameTable(NAMES);

/** The first line of a failed Bash call's error: "Exit code 2". */
const EXIT_CODE = /^Exit code (\d+)/;

export const claudeCodeAdapter: HostAdapter = {
  host: 'claude-code',
  ...NAME_TABLE,
  // src/install/hook-definitions.ts: prompts and tool events run async.
  blocking: new Set<HookEventKind>(['session_start', 'stop', 'session_end']),
  toEvent(name: string, input: Record<string, unknown>, deps: AdapterDeps): AdaptResult {
    const kind = NAME_TABLE.kindOf(name);
    if (!kind) return { ok: true, event: null, ignored: `Claude Code hook '${name}' is not one memtrace handles` };
    const sessionId = text(input.session_id);
    if (!sessionId) return { ok: false, reason: 'hook input has no session_id' };
    const common = { session_id: sessionId, cwd: text(input.cwd), transcript_path: text(input.transcript_path), platform: 'claude-code' };
    switch (kind) {
      case 'session_start':
        return { ok: true, event: definedFields({ kind, ...common, source: text(input.source), model: text(input.model) }) };
      case 'user_prompt_submit':
        return { ok: true, event: definedFields({ kind, ...common, prompt: text(input.prompt), prompt_id: text(input.prompt_id) }) };
      case 'post_tool_use':
      case 'post_tool_use_failure': {
        const toolName = text(input.tool_name);
        if (!toolName) return { ok: false, reason: `${name} input has no tool_name` };
        const tool = {
          ...common,
          tool_use_id: text(input.tool_use_id),
          tool_name: toolName,
          tool_input: input.tool_input ?? null,
          duration_ms: wholeMs(input.duration_ms),
          agent_id: text(input.agent_id),
          agent_type: text(input.agent_type),
          prompt_id: text(input.prompt_id),
        };
        if (kind === 'post_tool_use') return { ok: true, event: definedFields({ kind, ...tool, tool_response: input.tool_response ?? null }) };
        const error = typeof input.error === 'string' ? input.error : 'failed';
        const exit = EXIT_CODE.exec(error);
        return {
          ok: true,
          event: definedFields({ kind, ...tool, error, exit_code: exit ? Number(exit[1]) : null, is_interrupt: input.is_interrupt === true }),
        };
      }
      case 'stop': {
        // Versions before 2.1.47 send no final message: read it from the transcript's tail.
        const last = text(input.last_assistant_message) ?? (common.transcript_path ? (deps.lastAssistantText?.(common.transcript_path) ?? null) : null);
        return { ok: true, event: definedFields({ kind, ...common, last_assistant_message: last, prompt_id: text(input.prompt_id) }) };
      }
      case 'session_end':
        return { ok: true, event: definedFields({ kind, ...common, reason: text(input.reason) }) };
    }
  },
  contextOutput: sessionStartContextJson,
};
