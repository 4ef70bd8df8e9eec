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

/** The first column of `codex mcp list`'s table, below its `Name` header. */
export function mcpServerNames(table: string): string[] {
  const lines = table.split('\n').map((l) => l.trimEnd());
  const header = lines.findIndex((l) => /^Name\s+Command\b/.test(l));
  if (header === -1) return [];
  return lines
    .slice(header + 1)
    .map((l) => l.split(/\s+/)[0] ?? '')
    .filter((name) => name !== '');
}

function tomlKey(name: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name);
}

/**
 * `codex exec` as the observer (Codex CLI 0.169.0; flags checked against `codex exec --help` and
 * `codex features list`): `--ephemeral` writes no session files; `--disable hooks` runs no hook;
 * no MCP server starts (each one `codex mcp list` names is turned off); the shell and every optional tool feature are off and
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
  // `-c mcp_servers={}` merges with the user's table rather than replacing it: every server Codex
  // would start is turned off by name. The names come from `codex mcp list`, whose table masks each
  // server's environment values (its --json form would print them): memtrace never sees them.
  setupArgs: async (ask) => {
    const outcome = await ask(['mcp', 'list']);
    if (outcome.kind !== 'exited' || outcome.exitCode !== 0) return [];
    return mcpServerNames(outcome.stdout).flatMap((name) => ['-c', `mcp_servers.${tomlKey(name)}.enabled=false`]);
  },
  read: (outcome, nowMs) => {
    const reply = readCodexOutput(outcome.stdout, outcome.exitCode, nowMs);
    return { text: reply.text, usage: reply.usage, reportedCostUsd: null, model: null };
  },
};
