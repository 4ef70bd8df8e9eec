/**
 * memtrace's MCP server as Claude Code registers it, defined once: `memtrace install` writes it
 * into `~/.claude.json` (user) or a project's `.mcp.json`, and the plugin's manifest carries it.
 * Claude Code starts a stdio server with its own environment and the project as the working
 * directory, so the server finds the same data dir (MEMTRACE_DATA_DIR) as the hooks. Pure.
 */
import path from 'node:path';

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
 * host waits; the server reads a local database and makes no TLS connection.
 */
export const MCP_SERVER_ENV: Readonly<Record<string, string>> = { NODE_EXTRA_CA_CERTS: '' };

/** For settings files: this node and this package's bin, both absolute (whatever PATH Claude Code has). */
export function memtraceMcpEntry(nodePath: string, packageRoot: string): McpServerEntry {
  return { type: 'stdio', command: nodePath, args: [path.join(packageRoot, 'bin', 'memtrace.cjs'), 'mcp'], env: { ...MCP_SERVER_ENV } };
}

/** For the plugin: its own copy of the package, wherever Claude Code unpacked it. */
export const PLUGIN_MCP_ENTRY = { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/bin/memtrace.cjs', 'mcp'], env: MCP_SERVER_ENV } as const;

/**
 * An entry memtrace install wrote for any host (any version, any path), or an equivalent
 * `memtrace mcp` the user wrote: it runs memtrace (its bin, or the command) with `mcp` last.
 */
export function isMemtraceMcpEntry(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entry = value as Record<string, unknown>;
  const args = Array.isArray(entry.args) ? entry.args : [];
  const runs = [entry.command, ...args].filter((v): v is string => typeof v === 'string');
  return args.at(-1) === 'mcp' && runs.some((word) => /(?:^|[\\/])memtrace(?:\.[cm]js)?$/.test(word));
}
