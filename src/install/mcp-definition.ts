/**
 * memtrace's MCP server as the hosts register it, defined once: `memtrace install` writes it into
 * `~/.claude.json` (user) or a project's `.mcp.json`, Gemini CLI's settings and Codex's
 * config.toml, and the plugin's manifest carries it. The command is the hook forwarder's bridge
 * mode (`sh bin/memtrace-hook mcp <node>`): the native program install builds (else perl) carries
 * the host's JSON-RPC to the MCP server inside the worker, and with no worker becomes the Node
 * stdio server (`memtrace mcp`). Hosts start a stdio server with their own environment and the
 * project as the working directory, so it finds the same data dir (MEMTRACE_DATA_DIR) as the
 * hooks. Pure.
 */
import path from 'node:path';
import { PLUGIN_FORWARDER } from './hook-definitions.js';

/** The server name: Claude Code names its tools `mcp__memtrace__search`, … */
export const MCP_SERVER_KEY = 'memtrace';

export interface McpServerEntry {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * What the server's environment changes, on every host. NODE_EXTRA_CA_CERTS, common on company
 * machines, makes every Node start read and parse the whole bundle (about 45 ms here) while the
 * host waits; the Node stdio server (the bridge's fallback) reads a local database and makes no
 * TLS connection.
 */
export const MCP_SERVER_ENV: Readonly<Record<string, string>> = { NODE_EXTRA_CA_CERTS: '' };

/** The bridge's arguments: the forwarder, its mode, and the node its fallback runs. */
export function mcpBridgeArgs(forwarder: string, nodePath: string): string[] {
  return [forwarder, 'mcp', nodePath];
}

/** For settings files: this package's forwarder and this node, both absolute (whatever PATH the host has). */
export function memtraceMcpEntry(nodePath: string, packageRoot: string): McpServerEntry {
  return { type: 'stdio', command: 'sh', args: mcpBridgeArgs(path.join(packageRoot, 'bin', 'memtrace-hook'), nodePath), env: { ...MCP_SERVER_ENV } };
}

/** For the plugin: its own copy of the package, wherever Claude Code unpacked it; node from PATH. */
export const PLUGIN_MCP_ENTRY = {
  command: 'sh',
  args: mcpBridgeArgs('${CLAUDE_PLUGIN_ROOT}/bin/memtrace-hook', PLUGIN_FORWARDER.node),
  env: MCP_SERVER_ENV,
} as const;

/**
 * An entry memtrace install wrote for any host (any version, any path), or an equivalent
 * `memtrace mcp` the user wrote: the bridge (`memtrace-hook mcp <node>`), or memtrace's bin or
 * command with `mcp` last (what 0.2.0 wrote).
 */
export function isMemtraceMcpEntry(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entry = value as Record<string, unknown>;
  const args = Array.isArray(entry.args) ? entry.args : [];
  const runs = [entry.command, ...args].filter((v): v is string => typeof v === 'string');
  const bridge = runs.findIndex((word) => /(?:^|[\\/])memtrace-hook$/.test(word));
  if (bridge >= 0 && runs[bridge + 1] === 'mcp') return true;
  return args.at(-1) === 'mcp' && runs.some((word) => /(?:^|[\\/])memtrace(?:\.[cm]js)?$/.test(word));
}
