import { HOOK_EVENT_KINDS, type HookEventKind } from '../hook-event.js';
import { definedFields, eventNameTable, text, type AdaptResult, type EventNameRow, type HostAdapter } from '../host-adapter.js';
import { isRecord } from '../json-line.js';
import { copilotStopId, copilotToolUseId } from './call-ids.js';

/**
 * GitHub Copilot CLI 1.0.102's command hooks (AGENT-HOSTS-2.md §3): camelCase events get camelCase
 * payloads — sessionId, timestamp (ms) and cwd on every event; source (sessionStart); prompt
 * (userPromptSubmitted); toolName, toolArgs, toolResult {resultType, textResultForLlm}
 * (postToolUse); error (postToolUseFailure); transcriptPath, stopReason (agentStop); reason
 * (sessionEnd). No payload carries a tool-call id or the turn's final text: the call gets a
 * provisional id (call-ids.ts) and the worker reads the final text from `events.jsonl` once Copilot
 * has written it. A shell that exits non-zero is a postToolUse whose text ends
 * `<shellId: N completed with exit code K>`: a failure here. The snake_case fields of the
 * "VS Code compatible" PascalCase dialect are read too, so a hook wired to either works.
 */
const NAMES: readonly EventNameRow[] = [
  ['session-start', 'sessionStart', 'session_start'],
  ['user-prompt-submit', 'userPromptSubmitted', 'user_prompt_submit'],
  ['post-tool-use', 'postToolUse', 'post_tool_use'],
  ['post-tool-use-failure', 'postToolUseFailure', 'post_tool_use_failure'],
  ['stop', 'agentStop', 'stop'],
  ['session-end', 'sessionEnd', 'session_end'],
];
const NAME_TABLE = eventNameTable(NAMES);

const SHELL_TOOLS = new Set(['bash', 'powershell', 'Bash']);
const SHELL_EXIT = /\n?<shellId: [^>]*? completed with exit code (-?\d+)>\s*$/;
/** The output quoted in a failure's error text; the whole output stays in tool_response. */
const ERROR_OUTPUT_CHARS = 4_000;

/** A field in Copilot's camelCase dialect, else its snake_case twin. */
const field = (input: Record<string, unknown>, camel: string, snake: string): unknown => input[camel] ?? input[snake];

/** What the model was sent for a call: `textResultForLlm` (either dialect), or '' when absent. */
function resultText(result: unknown): string {
  if (typeof result === 'string') return result;
  if (!isRecord(result)) return '';
  const value = field(result, 'textResultForLlm', 'text_result_for_llm');
  return typeof value === 'string' ? value : '';
}

/**
 * Why a postToolUse call failed, or null when it did not: a result that is not a success, or a
 * shell's non-zero exit (`exitCode` when the transcript recorded it, else the text's trailer).
 */
export function copilotToolFailure(toolName: string, result: unknown, exitCode: number | null = null): { error: string; exitCode: number | null } | null {
  const output = resultText(result);
  const type = isRecord(result) ? field(result, 'resultType', 'result_type') : undefined;
  if (typeof type === 'string' && type !== 'success') return { error: `${type}${output ? `\n${output.slice(0, ERROR_OUTPUT_CHARS)}` : ''}`, exitCode: null };
  if (!SHELL_TOOLS.has(toolName)) return null;
  const trailer = SHELL_EXIT.exec(output);
  const code = exitCode ?? (trailer ? Number(trailer[1]) : null);
  if (code === null || code === 0) return null;
  const shown = (trailer ? output.slice(0, trailer.index) : output).trim();
  return { error: `Exit code ${code}${shown ? `\n${shown.slice(0, ERROR_OUTPUT_CHARS)}` : ''}`, exitCode: code };
}

export const copilotAdapter: HostAdapter = {
  host: 'copilot',
  // Copilot waits for every command hook it runs.
  blocking: new Set<HookEventKind>(HOOK_EVENT_KINDS),
  ...NAME_TABLE,
  toEvent(name: string, input: Record<string, unknown>): AdaptResult {
    const kind = NAME_TABLE.kindOf(name);
    if (!kind) return { ok: true, event: null, ignored: `Copilot CLI hook '${name}' is not one memtrace handles` };
    const sessionId = text(field(input, 'sessionId', 'session_id'));
    if (!sessionId) return { ok: false, reason: 'hook input has no sessionId' };
    const transcriptPath = text(field(input, 'transcriptPath', 'transcript_path'));
    const common = { session_id: sessionId, cwd: text(input.cwd), transcript_path: transcriptPath, platform: 'copilot' };
    switch (kind) {
      case 'session_start':
        return { ok: true, event: definedFields({ kind, ...common, source: text(input.source) }) };
      case 'user_prompt_submit':
        return { ok: true, event: definedFields({ kind, ...common, prompt: text(input.prompt) }) };
      case 'post_tool_use':
      case 'post_tool_use_failure': {
        const toolName = text(field(input, 'toolName', 'tool_name'));
        if (!toolName) return { ok: false, reason: `${name} input has no toolName` };
        const toolArgs = field(input, 'toolArgs', 'tool_input') ?? null;
        const tool = {
          ...common,
          tool_use_id: copilotToolUseId({ sessionId, timestamp: input.timestamp, toolName, toolArgs }),
          tool_name: toolName,
          tool_input: toolArgs,
        };
        if (kind === 'post_tool_use_failure') {
          const error = text(input.error) ?? (isRecord(input.error) ? text(input.error.message) : null) ?? 'the tool failed';
          return { ok: true, event: definedFields({ kind, ...tool, error }) };
        }
        const result = field(input, 'toolResult', 'tool_result') ?? null;
        const failure = copilotToolFailure(toolName, result);
        if (!failure) return { ok: true, event: definedFields({ kind, ...tool, tool_response: result }) };
        return {
          ok: true,
          event: definedFields({ kind: 'post_tool_use_failure' as const, ...tool, tool_response: result, error: failure.error, exit_code: failure.exitCode }),
        };
      }
      case 'stop':
        // No final text here: the worker reads it from events.jsonl once Copilot has flushed it.
        return { ok: true, event: definedFields({ kind, ...common, prompt_id: copilotStopId(input.timestamp) }) };
      case 'session_end':
        return { ok: true, event: definedFields({ kind, ...common, reason: text(input.reason) }) };
    }
  },
  // Copilot reads `additionalContext` at the top level (a Claude-style hookSpecificOutput is ignored),
  // and Codex refuses that key: the context file kept for a start without a worker is Copilot's own.
  contextOutput: copilotContextJson,
  contextVariant: 'copilot',
  // camelCase: `preToolUse`, `notification`, and whatever a newer Copilot adds.
  hostEventName: /^[a-z][A-Za-z]{0,63}$/,
};

export function copilotContextJson(markdown: string): string {
  return `${JSON.stringify({ additionalContext: markdown })}\n`;
}
