import type { HostCliSpec } from './host-cli-provider.js';
import { readClaudeCodeOutput } from './claude-code-output.js';

/**
 * `claude -p` as the observer (Claude Code 2.1.330; flags checked against its `--help`):
 * - `--no-session-persistence`: no transcript under ~/.claude/projects/, nothing to resume;
 * - `--settings '{"disableAllHooks":true}'` and `--safe-mode`: no hook runs, the user's own
 *   (~/.claude/settings.json) and memtrace's included; safe mode also skips CLAUDE.md files,
 *   skills and plugins, so the user's instructions are not sent with every call;
 * - `--strict-mcp-config` without `--mcp-config`: no MCP server starts;
 * - `--tools ""`: no tool at all, so the reply is the model's one answer (one API call);
 * - `--system-prompt`: the observer's instructions replace Claude Code's own;
 * - `--output-format stream-json --verbose`: typed result, usage, cost and error fields.
 * Environment: CLAUDE_CODE_MAX_OUTPUT_TOKENS caps the reply (it becomes the request's max_tokens),
 * CLAUDE_CODE_MAX_RETRIES=0 leaves retrying to the worker's backoff (no retries stacked on retries),
 * CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 keeps the call to the one API request.
 * The login is whatever Claude Code finds (OAuth credentials, apiKeyHelper, a key): `--bare` is
 * not used because it reads only API keys.
 */
export const CLAUDE_CODE_CLI: HostCliSpec = {
  name: 'claude-code',
  binary: 'claude',
  defaultModel: 'haiku',
  // Measured: Claude Code 2.1.330 adds a billing header, one agent line and an environment block,
  // about 1,900 bytes of request body around our prompt (docs/observer.md#budget).
  limits: (maxOutputTokens) => ({ overheadTokens: 4_096, outputTokens: maxOutputTokens, outputEnforced: true }),
  args: (call) => [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--no-session-persistence',
    '--strict-mcp-config',
    '--tools',
    '',
    '--settings',
    '{"disableAllHooks":true}',
    '--safe-mode',
    '--effort',
    'low',
    '--system-prompt',
    call.system,
    ...(call.model ? ['--model', call.model] : []),
  ],
  env: (call) => ({
    CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(call.maxOutputTokens),
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    TMPDIR: call.tmpDir,
    CLAUDE_CODE_TMPDIR: call.tmpDir,
  }),
  read: (outcome, nowMs) => {
    const reply = readClaudeCodeOutput(outcome.stdout, outcome.exitCode, nowMs);
    return { text: reply.text, usage: reply.usage, reportedCostUsd: reply.costUsd, model: reply.model };
  },
};
