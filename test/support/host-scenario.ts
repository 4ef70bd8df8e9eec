/**
 * The scripted sessions the Gemini CLI and Codex e2e tests and the hosts bench run: the fake
 * APIs' default steps (write a file, read it, edit it, a failing `cat`; Gemini also reads a
 * missing file), optionally with a command whose output is large, then a final answer.
 */
import type { AgentHost } from './host-cli.js';

export const FINAL_TEXT = 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.';
/** 1.29 MB of output: Gemini sends it twice in one 2.9 MB payload, Codex cuts it to about 40 KB. */
export const LARGE_COMMAND = 'seq 1 200000';

const GEMINI_STEPS = [
  { call: 'run_shell_command', args: { command: 'echo hello > out.txt', description: 'write out.txt' } },
  { call: 'read_file', args: { file_path: '${PROJECT}/out.txt' } },
  { call: 'replace', args: { file_path: '${PROJECT}/out.txt', old_string: 'hello', new_string: 'hello world', instruction: 'extend greeting' } },
  { call: 'run_shell_command', args: { command: 'cat does-not-exist.txt', description: 'read a missing file' } },
  { call: 'read_file', args: { file_path: '${PROJECT}/does-not-exist.txt' } },
];
/** The reference session of shared/hosts/copilot/script.json: the failing cat is a postToolUse, the missing view a postToolUseFailure. */
const COPILOT_STEPS = [
  { call: 'bash', args: { command: 'echo hello > out.txt && echo hi', description: 'write out.txt' } },
  { call: 'view', args: { path: '${PROJECT}/out.txt' } },
  { call: 'edit', args: { path: '${PROJECT}/out.txt', old_str: 'hello', new_str: 'hello world' } },
  { call: 'bash', args: { command: 'cat does-not-exist.txt', description: 'read a missing file' } },
  { call: 'view', args: { path: '${PROJECT}/does-not-exist.txt' } },
];
const CODEX_STEPS = [
  { shell: 'echo hello > out.txt' },
  { shell: 'cat out.txt' },
  { patch: '*** Begin Patch\n*** Update File: out.txt\n@@\n-hello\n+hello world\n*** End Patch\n' },
  { shell: 'cat does-not-exist.txt' },
];

export function hostScript(host: AgentHost, options: { largeOutput?: boolean } = {}): unknown[] {
  const large =
    host === 'gemini-cli'
      ? { call: 'run_shell_command', args: { command: LARGE_COMMAND, description: 'count' } }
      : host === 'copilot'
        ? { call: 'bash', args: { command: LARGE_COMMAND, description: 'count' } }
        : { shell: LARGE_COMMAND };
  const steps = host === 'gemini-cli' ? GEMINI_STEPS : host === 'copilot' ? COPILOT_STEPS : CODEX_STEPS;
  return [...steps, ...(options.largeOutput ? [large] : []), { text: FINAL_TEXT }];
}

/** The hook firings one scripted session makes, by host event (what the worker should see). */
export function expectedFirings(host: AgentHost, toolCalls: number): Record<string, number> {
  // Copilot: one of the calls (the view of a missing file) fires postToolUseFailure instead.
  if (host === 'copilot') return { sessionStart: 1, userPromptSubmitted: 1, postToolUse: toolCalls - 1, postToolUseFailure: 1, agentStop: 1, sessionEnd: 1 };
  return host === 'gemini-cli'
    ? { SessionStart: 1, BeforeAgent: 1, AfterTool: toolCalls, AfterAgent: 1, SessionEnd: 1 }
    : { SessionStart: 1, UserPromptSubmit: 1, PostToolUse: toolCalls, Stop: 1, SessionEnd: 1 };
}
