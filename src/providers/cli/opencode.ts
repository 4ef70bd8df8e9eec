import path from 'node:path';
import type { HostCliSpec } from './host-cli-provider.js';
import { readOpenCodeOutput } from './opencode-output.js';

/**
 * `opencode run` as the observer (OpenCode 1.18.33; AGENT-HOSTS-2.md §6, each flag checked
 * offline): `--pure` loads no plugin (memtrace's own included); `OPENCODE_DB=:memory:` keeps
 * no session; the call runs as an agent of memtrace's own, `memtrace-observer`, defined in
 * OPENCODE_CONFIG_CONTENT (merged over the user's config, whose providers and login it keeps):
 * its prompt is the observer's system prompt (read from a file in the scratch dir), and every
 * permission is denied, which takes every tool out of the request. Every MCP server the user
 * has is turned off by name (`opencode debug config` lists them; OpenCode would start them and
 * wait for them). `--title` skips the title-generation request; the prompt goes on stdin.
 * OpenCode unpacks a 5.5 MB library into TMPDIR on every start and never removes it: the call's
 * own TMPDIR is removed after it. OpenCode has no switch that caps the reply (an estimate).
 */
const AGENT = 'memtrace-observer';
const SYSTEM_FILE = 'observer-system.md';

/** The MCP servers in `opencode debug config`'s JSON (the resolved config; OpenCode masks secrets in it). */
export function openCodeMcpNames(debugConfig: string): string[] {
  try {
    const config = JSON.parse(debugConfig) as { mcp?: unknown };
    return config.mcp !== null && typeof config.mcp === 'object' && !Array.isArray(config.mcp) ? Object.keys(config.mcp) : [];
  } catch {
    return [];
  }
}

function openCodeObserverConfig(systemFile: string, mcpNames: readonly string[]): string {
  const off = { type: 'local', command: ['true'], enabled: false };
  return JSON.stringify({
    agent: { [AGENT]: { mode: 'primary', description: 'memtrace observer', prompt: `{file:${systemFile}}`, permission: { '*': 'deny' } } },
    mcp: Object.fromEntries(['memtrace', ...mcpNames].map((name) => [name, off])),
  });
}

export const OPENCODE_CLI: HostCliSpec = {
  name: 'opencode',
  binary: 'opencode',
  defaultModel: null,
  // OpenCode adds its <env> block (directory, platform, date) to the agent's prompt.
  limits: (maxOutputTokens) => ({ overheadTokens: 2_048, outputTokens: maxOutputTokens, outputEnforced: false }),
  files: (call) => [{ name: SYSTEM_FILE, content: call.system }],
  args: (call) => ['run', '--pure', '--agent', AGENT, '--title', 'memtrace observer', '--format', 'json', ...(call.model ? ['--model', call.model] : [])],
  env: (call) => ({
    OPENCODE_DB: ':memory:',
    OPENCODE_CONFIG_CONTENT: openCodeObserverConfig(path.join(call.scratchDir, SYSTEM_FILE), call.setup),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    TMPDIR: call.tmpDir,
  }),
  setupFacts: async (ask) => {
    const outcome = await ask(['debug', 'config', '--pure']);
    return outcome.kind === 'exited' && outcome.exitCode === 0 ? openCodeMcpNames(outcome.stdout).filter((name) => name !== 'memtrace') : [];
  },
  read: (outcome, nowMs) => {
    const reply = readOpenCodeOutput(outcome.stdout, outcome.exitCode, nowMs);
    return { text: reply.text, usage: reply.usage, reportedCostUsd: reply.costUsd, model: null };
  },
};
