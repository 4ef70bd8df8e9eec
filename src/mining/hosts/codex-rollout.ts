import { CODEX_SHELL_TOOL, codexToolFailure } from '../../hosts/codex/adapter.js';
import { completedItem, lastAgentMessageIn, type RolloutLine } from '../../hosts/codex/rollout-lines.js';
import type { HostCall, HostTranscript } from './mined-call.js';

/**
 * Codex's rollout → the tool calls its PostToolUse hook would have delivered. Pure. A call is a
 * `function_call` or `custom_tool_call` response item, paired with its output by `call_id` (the
 * hooks' tool_use_id). Named as the hook names them: `exec_command` is `Bash` with
 * `{command}` and the command's output as the response; `apply_patch` keeps its name with the
 * patch as `{command}`. A shell call's exit code comes from its `CommandExecution` item.
 */
const SHELL_TOOLS = new Set(['exec_command', 'shell_command']);
/** The header Codex puts before a command's output in what the model sees, with its exit code. */
const OUTPUT_HEADER = /^[\s\S]*?\nOutput:\n/;
const PROCESS_EXIT = /^Process exited with code (-?\d+)\s*$/m;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

interface OpenCall {
  callId: string;
  name: string;
  input: unknown;
  atMs: number | null;
}

function parseArguments(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('');
  return output === undefined || output === null ? '' : JSON.stringify(output);
}

export function readCodexRollout(lines: readonly RolloutLine[], fallbackSessionId: string): HostTranscript {
  let sessionId: string | null = null;
  let cwd: string | null = null;
  let prompt: string | null = null;
  const open = new Map<string, OpenCall>();
  const executions = new Map<string, { exitCode: number | null; output: string | null }>();
  const finished: Array<{ call: OpenCall; output: unknown }> = [];
  for (const line of lines) {
    const p = line.payload;
    const atMs = line.timestamp === null ? null : Date.parse(line.timestamp);
    if (line.type === 'session_meta') {
      if (typeof p.id === 'string') sessionId ??= p.id;
      if (typeof p.cwd === 'string') cwd ??= p.cwd;
      continue;
    }
    const item = completedItem(line);
    if (item) {
      if (item.type === 'CommandExecution' && typeof item.id === 'string') {
        executions.set(item.id, {
          exitCode: typeof item.exit_code === 'number' ? item.exit_code : null,
          output: typeof item.aggregated_output === 'string' ? item.aggregated_output : null,
        });
      } else if (item.type === 'UserMessage' && prompt === null && Array.isArray(item.content)) {
        const text = item.content
          .map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : ''))
          .join('')
          .trim();
        if (text !== '') prompt = text;
      }
      continue;
    }
    if (line.type !== 'response_item' || typeof p.call_id !== 'string') continue;
    if ((p.type === 'function_call' || p.type === 'custom_tool_call') && typeof p.name === 'string') {
      open.set(p.call_id, {
        callId: p.call_id,
        name: p.name,
        input: p.type === 'custom_tool_call' ? p.input : parseArguments(p.arguments),
        atMs: Number.isFinite(atMs) ? atMs : null,
      });
    } else if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') {
      const call = open.get(p.call_id);
      if (!call) continue;
      open.delete(p.call_id);
      finished.push({ call, output: p.output });
    }
  }
  const calls = finished.map(({ call, output }) => hostCallOf(call, output, executions.get(call.callId) ?? null));
  return { sessionId: sessionId ?? fallbackSessionId, calls, prompt, cwd, lastAssistantText: lastAgentMessageIn(lines) };
}

function hostCallOf(call: OpenCall, output: unknown, execution: { exitCode: number | null; output: string | null } | null): HostCall {
  const text = outputText(output);
  let toolName = call.name;
  let toolInput = call.input;
  let toolResponse: unknown = text;
  if (SHELL_TOOLS.has(call.name)) {
    const args = isObject(call.input) ? call.input : {};
    toolName = CODEX_SHELL_TOOL;
    toolInput = { command: typeof args.cmd === 'string' ? args.cmd : typeof args.command === 'string' ? args.command : call.input };
    toolResponse = execution?.output ?? text.replace(OUTPUT_HEADER, '');
  } else if (call.name === 'apply_patch') {
    toolInput = {
      command: typeof call.input === 'string' ? call.input : isObject(call.input) && typeof call.input.input === 'string' ? call.input.input : call.input,
    };
  }
  const exit = PROCESS_EXIT.exec(text);
  const exitCode = execution?.exitCode ?? (toolName === CODEX_SHELL_TOOL && exit ? Number(exit[1]) : null);
  return {
    toolUseId: call.callId,
    alsoKnownAs: [],
    toolName,
    toolInput,
    toolResponse,
    failure: codexToolFailure(toolName, toolResponse, exitCode),
    atMs: call.atMs,
  };
}
