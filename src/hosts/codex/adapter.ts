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

/**
 * Codex CLI 0.169's hook payloads (AGENT-HOSTS.md §1, §3.4): session_id, transcript_path
 * (nullable), cwd and hook_event_name on every event; model and permission_mode on most;
 * turn_id on turn-scoped ones (memtrace's prompt_id); source (SessionStart); prompt
 * (UserPromptSubmit); tool_name, tool_input, tool_response, tool_use_id (PostToolUse);
 * last_assistant_message (Stop); reason (SessionEnd). Codex has no failure event: a shell
 * call's exit code is read from the rollout by tool_use_id, and apply_patch's response starts
 * with `Exit code: N`.
 */
const NAMES: readonly EventNameRow[] = [
  ['session-start', 'SessionStart', 'session_start'],
  ['user-prompt-submit', 'UserPromptSubmit', 'user_prompt_submit'],
  ['post-tool-use', 'PostToolUse', 'post_tool_use'],
  ['stop', 'Stop', 'stop'],
  ['session-end', 'SessionEnd', 'session_end'],
];
const NAME_TABLE = eventNameTable(NAMES);

/** Codex reports its exec_command tool as Bash. */
export const CODEX_SHELL_TOOL = 'Bash';
const PATCH_EXIT = /^Exit code: (-?\d+)/;
const ERROR_OUTPUT_CHARS = 4_000;

/** A shell or patch call's failure from its exit code; null when it succeeded or the code is unknown. */
export function codexToolFailure(toolName: string, response: unknown, exitCode: number | null): { error: string; exitCode: number } | null {
  const output = typeof response === 'string' ? response.trim() : '';
  let code = exitCode;
  if (code === null && toolName === 'apply_patch') {
    const match = PATCH_EXIT.exec(output);
    code = match ? Number(match[1]) : null;
  }
  if (code === null || code === 0) return null;
  return { error: `Exit code ${code}${output ? `\n${output.slice(0, ERROR_OUTPUT_CHARS)}` : ''}`, exitCode: code };
}

export const codexAdapter: HostAdapter = {
  host: 'codex',
  /*
   * What Codex waits on; install makes the other hooks async (src/install/host-hooks.ts). Codex
   * kills async hooks still running when `codex exec` exits: a prompt's and a tool call's fire long
   * before that (a model round trip and the waited-for Stop and SessionEnd come after them), and
   * the worker mines the session's rollout after it ends, which queues a call a killed hook lost.
   */
  blocking: new Set<HookEventKind>(['session_start', 'stop', 'session_end']),
  ...NAME_TABLE,
  toEvent(name: string, input: Record<string, unknown>, deps: AdapterDeps): AdaptResult {
    const kind = NAME_TABLE.kindOf(name);
    if (!kind) return { ok: true, event: null, ignored: `Codex hook '${name}' is not one memtrace handles` };
    const sessionId = text(input.session_id);
    if (!sessionId) return { ok: false, reason: 'hook input has no session_id' };
    const common = { session_id: sessionId, cwd: text(input.cwd), transcript_path: text(input.transcript_path), platform: 'codex' };
    const promptId = text(input.turn_id);
    switch (kind) {
      case 'session_start':
        return { ok: true, event: definedFields({ kind, ...common, source: text(input.source), model: text(input.model) }) };
      case 'user_prompt_submit':
        return { ok: true, event: definedFields({ kind, ...common, prompt: text(input.prompt), prompt_id: promptId }) };
      case 'post_tool_use':
      case 'post_tool_use_failure': {
        const toolName = text(input.tool_name);
        if (!toolName) return { ok: false, reason: `${name} input has no tool_name` };
        const toolUseId = text(input.tool_use_id);
        const tool = {
          ...common,
          tool_use_id: toolUseId,
          tool_name: toolName,
          tool_input: input.tool_input ?? null,
          tool_response: input.tool_response ?? null,
          agent_id: text(input.agent_id),
          prompt_id: promptId,
        };
        const exitCode =
          toolName === CODEX_SHELL_TOOL && toolUseId && common.transcript_path ? (deps.exitCodeOf?.(common.transcript_path, toolUseId) ?? null) : null;
        const failure = codexToolFailure(toolName, input.tool_response, exitCode);
        if (!failure) return { ok: true, event: definedFields({ kind: 'post_tool_use' as const, ...tool }) };
        return { ok: true, event: definedFields({ kind: 'post_tool_use_failure' as const, ...tool, error: failure.error, exit_code: failure.exitCode }) };
      }
      case 'stop': {
        const last = text(input.last_assistant_message) ?? (common.transcript_path ? (deps.lastAssistantText?.(common.transcript_path) ?? null) : null);
        return { ok: true, event: definedFields({ kind, ...common, last_assistant_message: last, prompt_id: promptId }) };
      }
      case 'session_end':
        return { ok: true, event: definedFields({ kind, ...common, reason: text(input.reason) }) };
    }
  },
  // Plain text would do too; the JSON form is the one every host reads.
  contextOutput: sessionStartContextJson,
};
