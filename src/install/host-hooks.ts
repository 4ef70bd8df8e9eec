/**
 * memtrace's hooks for Gemini CLI and Codex (AGENT-HOSTS.md §2.1, §3.1), defined once per host:
 * the events, the command each runs, and how install recognises its own entries again. Pure: how
 * to run memtrace (the forwarder and the node it falls back to, absolute paths) comes in as a value.
 */
import { codexAdapter } from '../hosts/codex/adapter.js';
import { forwarderCommand, type Forwarder, type HookMatcherGroup } from './hook-definitions.js';
import type { OwnsCommand, WantedHooks } from './settings-merge.js';
import { MCP_SERVER_ENV, mcpBridgeArgs } from './mcp-definition.js';

export const INSTALL_HOSTS = ['gemini-cli', 'codex', 'copilot'] as const;
export type InstallHost = (typeof INSTALL_HOSTS)[number];
/** The hosts whose hooks sit in Claude-style matcher groups (Copilot's flat lists: copilot-hooks.ts). */
type GroupedHost = Exclude<InstallHost, 'copilot'>;

/** The host events memtrace hooks, in the order they are written (Copilot's camelCase ones get its camelCase payloads). */
const HOST_HOOK_EVENTS: Readonly<Record<InstallHost, readonly string[]>> = {
  'gemini-cli': ['SessionStart', 'BeforeAgent', 'AfterTool', 'AfterAgent', 'SessionEnd'],
  codex: ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop', 'SessionEnd'],
  copilot: ['sessionStart', 'userPromptSubmitted', 'postToolUse', 'postToolUseFailure', 'agentStop', 'sessionEnd'],
};

/** The events `memtrace install --host` hooks for a host (what `memtrace doctor` expects to find). */
export function hostHookEvents(host: InstallHost): readonly string[] {
  return HOST_HOOK_EVENTS[host];
}

/** The one command a host runs for one of its events: the forwarder, as for Claude Code. */
function hostHookCommand(forwarder: Forwarder, host: GroupedHost, event: string): string {
  return forwarderCommand(forwarder, host, event, 'settings');
}

/** A command memtrace install wrote for this host (the forwarder, or the Node hook it once ran), whatever the paths. */
export function ownsHostHookCommand(host: InstallHost): OwnsCommand {
  const patterns = [new RegExp(`memtrace-hook"? ${host} \\S+ settings(?: |$)`), new RegExp(`memtrace\\.[cm]js"? hook --host ${host} \\S+(?: |$)`)];
  return (command) => typeof command === 'string' && patterns.some((p) => p.test(command));
}

/**
 * Every Gemini hook blocks the agent (there is no background flag), so the host's own limit is
 * only a safety net above the forwarder's own. Milliseconds.
 */
const GEMINI_TIMEOUT_MS: Readonly<Record<string, number>> = { SessionStart: 15_000 };
const GEMINI_DEFAULT_TIMEOUT_MS = 10_000;
/** Codex counts seconds and clamps SessionEnd to 3 s (warning on every start when set higher). */
const CODEX_TIMEOUT_S: Readonly<Record<string, number>> = { SessionStart: 15, SessionEnd: 3 };
const CODEX_DEFAULT_TIMEOUT_S = 10;
/**
 * Codex waits for a hook unless it is `async`: the events its adapter says the agent waits on
 * (`blocking`) are the only ones installed so, the others run async.
 */
const codexWaitsFor = (event: string): boolean => {
  const kind = codexAdapter.kindOf(event);
  return kind !== null && codexAdapter.blocking.has(kind);
};

export function hostHooks(host: GroupedHost, forwarder: Forwarder): WantedHooks {
  const block: Record<string, HookMatcherGroup[]> = {};
  for (const event of HOST_HOOK_EVENTS[host]) {
    const command = hostHookCommand(forwarder, host, event);
    block[event] =
      host === 'gemini-cli'
        ? // Gemini fingerprints a project hook by name and command for its trust check.
          [{ matcher: '*', hooks: [{ type: 'command', name: `memtrace-${event}`, command, timeout: GEMINI_TIMEOUT_MS[event] ?? GEMINI_DEFAULT_TIMEOUT_MS }] }]
        : [
            {
              hooks: [
                { type: 'command', command, timeout: CODEX_TIMEOUT_S[event] ?? CODEX_DEFAULT_TIMEOUT_S, ...(codexWaitsFor(event) ? {} : { async: true }) },
              ],
            },
          ];
  }
  return block;
}

/**
 * memtrace's MCP server as Gemini CLI or Codex starts it: the bridge (`sh <forwarder> mcp <node>`,
 * mcp-definition.ts), this package's forwarder and this node, both absolute.
 */
export interface HostMcpEntry {
  command: string;
  args: string[];
  /** MCP_SERVER_ENV, and the worker's data dir and port when install ran with them set, so the server reads the same store. */
  env: Record<string, string>;
}

export function hostMcpEntry(nodePath: string, forwarderPath: string, env: Record<string, string | undefined>): HostMcpEntry {
  const pinned = Object.fromEntries(['MEMTRACE_DATA_DIR', 'MEMTRACE_PORT'].flatMap((key) => (env[key] ? [[key, env[key]!]] : [])));
  return { command: 'sh', args: mcpBridgeArgs(forwarderPath, nodePath), env: { ...MCP_SERVER_ENV, ...pinned } };
}
