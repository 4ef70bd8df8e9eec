import path from 'node:path';
import type { HostCliSpec } from './host-cli-provider.js';
import { readCodexOutput } from './codex-output.js';

/** Codex features that would give the observer tools, plugins or hooks; all turned off for its call. */
const DISABLED_FEATURES = [
  'hooks',
  'shell_tool',
  'unified_exec',
  'plugins',
  'apps',
  'image_generation',
  'multi_agent',
  'browser_use',
  'computer_use',
  'goals',
  'sleep_tool',
  'tool_suggest',
  'skill_search',
];

/**
 * `codex exec` as the observer (Codex CLI 0.169.0; flags checked against `codex exec --help` and
 * `codex features list`): `--ephemeral` writes no session files; `--disable hooks` runs no hook;
 * `-c mcp_servers={}` starts no MCP server; the shell and every optional tool feature are off and
 * `-s read-only` with `approval_policy="never"` leaves the few built-in tools Codex always offers
 * (apply_patch, view_image) unable to change anything; `model_instructions_file` replaces Codex's
 * own instructions with the observer's. Codex has no switch that caps the reply, so its bound is an
 * estimate (docs/observer.md#budget).
 */
export const CODEX_CLI: HostCliSpec = {
  name: 'codex',
  binary: 'codex',
  defaultModel: null,
  // Measured: the tool definitions Codex always sends are about 6 KB of request body.
  limits: (maxOutputTokens) => ({ overheadTokens: 8_192, outputTokens: maxOutputTokens, outputEnforced: false }),
  files: (call) => [{ name: 'observer-instructions.md', content: call.system }],
  args: (call) => [
    'exec',
    '--json',
    '--ephemeral',
    '--skip-git-repo-check',
    '-s',
    'read-only',
    ...DISABLED_FEATURES.flatMap((feature) => ['--disable', feature]),
    '-c',
    'mcp_servers={}',
    '-c',
    'web_search="disabled"',
    '-c',
    'approval_policy="never"',
    '-c',
    'model_reasoning_effort="low"',
    '-c',
    `model_instructions_file=${JSON.stringify(path.join(call.scratchDir, 'observer-instructions.md'))}`,
    ...(call.model ? ['-m', call.model] : []),
    '-',
  ],
  env: (call) => ({ TMPDIR: call.tmpDir }),
  read: (outcome, nowMs) => {
    const reply = readCodexOutput(outcome.stdout, outcome.exitCode, nowMs);
    return { text: reply.text, usage: reply.usage, reportedCostUsd: null, model: null };
  },
};
