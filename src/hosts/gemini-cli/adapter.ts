import { HOOK_EVENT_KINDS, type HookEventKind } from '../hook-event.js';
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
import { canonicalJson } from '../call-hash.js';
import { geminiToolUseId } from './tool-use-id.js';

/**
 * Gemini CLI 0.61's hook payloads (AGENT-HOSTS.md §1, §2.4): session_id, transcript_path, cwd,
 * hook_event_name and timestamp on every event; source (SessionStart); prompt (BeforeAgent);
 * tool_name, tool_input, tool_response {llmContent, returnDisplay, error?} (AfterTool);
 * prompt_response (AfterAgent); reason (SessionEnd). Gemini has no failure event: a tool error
 * (`tool_response.error`) or a shell command's non-zero `Exit Code: N` makes the call a failure.
 */
const NAMES: readonly EventNameRow[] = [
  ['session-start', 'SessionStart', 'session_start'],
  ['user-prompt-submit', 'BeforeAgent', 'user_prompt_submit'],
  ['post-tool-use', 'AfterTool', 'post_tool_use'],
  ['stop', 'AfterAgent', 'stop'],
  ['session-end', 'SessionEnd', 'session_end'],
];
const NAME_TABLE = eventNameTable(NAMES);

const SHELL_TOOL = 'run_shell_command';
/** In -p mode Gemini prepends session-start context to the prompt; it is the hooks' text, not the user's. */
const HOOK_CONTEXT = /^(?:\s*<hook_context>[\s\S]*?<\/hook_context>)+\s*/;
const EXIT_CODE = /^Exit Code: (-?\d+)\s*$/m;
/** The output quoted in a failure's error text; the whole output stays in tool_response. */
const ERROR_OUTPUT_CHARS = 4_000;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** llmContent is a string for the built-in tools, a list of parts for some (MCP, multi-file reads). */
function contentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('\n');
  return '';
}

/** Why a tool call failed, or null when it did not: a tool error, or a shell command's non-zero exit. */
export function geminiToolFailure(toolName: string, response: unknown): { error: string; exitCode: number | null } | null {
  if (!isObject(response)) return null;
  const error = response.error;
  if (error !== undefined && error !== null) {
    if (isObject(error)) {
      const message = typeof error.message === 'string' && error.message !== '' ? error.message : 'the tool reported an error';
      return { error: typeof error.type === 'string' && error.type !== '' ? `${message} (${error.type})` : message, exitCode: null };
    }
    return { error: typeof error === 'string' && error !== '' ? error : 'the tool reported an error', exitCode: null };
  }
  if (toolName !== SHELL_TOOL) return null;
  const exit = EXIT_CODE.exec(contentText(response.llmContent));
  if (!exit || Number(exit[1]) === 0) return null;
  const exitCode = Number(exit[1]);
  const output = typeof response.returnDisplay === 'string' ? response.returnDisplay.trim() : '';
  return { error: `Exit code ${exitCode}${output ? `\n${output.slice(0, ERROR_OUTPUT_CHARS)}` : ''}`, exitCode };
}

/** The call's id: the transcript's own when the hook can see it, else one derived from its model turn. */
function toolUseIdOf(sessionId: string, input: Record<string, unknown>, toolName: string, deps: AdapterDeps): string {
  const transcript = text(input.transcript_path);
  const turn = transcript ? (deps.lastModelTurn?.(transcript) ?? null) : null;
  if (turn) {
    const args = canonicalJson(input.tool_input ?? null);
    const seen = turn.toolCalls.filter((call) => call.name === toolName && canonicalJson(call.args) === args);
    if (seen.length === 1) return seen[0]!.id;
    return geminiToolUseId({ sessionId, turnId: turn.id, time: turn.timestamp, toolName, toolInput: input.tool_input ?? null });
  }
  return geminiToolUseId({ sessionId, turnId: null, time: text(input.timestamp), toolName, toolInput: input.tool_input ?? null });
}

export const geminiCliAdapter: HostAdapter = {
  host: 'gemini-cli',
  // Gemini CLI has no background hooks: the agent waits for every one.
  blocking: new Set<HookEventKind>(HOOK_EVENT_KINDS),
  ...NAME_TABLE,
  toEvent(name: string, input: Record<string, unknown>, deps: AdapterDeps): AdaptResult {
    const kind = NAME_TABLE.kindOf(name);
    if (!kind) return { ok: true, event: null, ignored: `Gemini CLI hook '${name}' is not one memtrace handles` };
    const sessionId = text(input.session_id);
    if (!sessionId) return { ok: false, reason: 'hook input has no session_id' };
    const common = { session_id: sessionId, cwd: text(input.cwd), transcript_path: text(input.transcript_path), platform: 'gemini-cli' };
    switch (kind) {
      case 'session_start':
        return { ok: true, event: definedFields({ kind, ...common, source: text(input.source) }) };
      case 'user_prompt_submit':
        return {
          ok: true,
          event: definedFields({ kind, ...common, prompt: text(typeof input.prompt === 'string' ? input.prompt.replace(HOOK_CONTEXT, '') : null) }),
        };
      case 'post_tool_use':
      case 'post_tool_use_failure': {
        const toolName = text(input.tool_name);
        if (!toolName) return { ok: false, reason: `${name} input has no tool_name` };
        const tool = {
          ...common,
          tool_use_id: toolUseIdOf(sessionId, input, toolName, deps),
          tool_name: toolName,
          tool_input: input.tool_input ?? null,
          tool_response: input.tool_response ?? null,
        };
        const failure = geminiToolFailure(toolName, input.tool_response);
        if (!failure) return { ok: true, event: definedFields({ kind: 'post_tool_use' as const, ...tool }) };
        return { ok: true, event: definedFields({ kind: 'post_tool_use_failure' as const, ...tool, error: failure.error, exit_code: failure.exitCode }) };
      }
      case 'stop': {
        const last = text(input.prompt_response) ?? (common.transcript_path ? (deps.lastAssistantText?.(common.transcript_path) ?? null) : null);
        return { ok: true, event: definedFields({ kind, ...common, last_assistant_message: last }) };
      }
      case 'session_end':
        return { ok: true, event: definedFields({ kind, ...common, reason: text(input.reason) }) };
    }
  },
  // Gemini reads only this JSON as model context; plain stdout reaches the user alone.
  contextOutput: sessionStartContextJson,
};
