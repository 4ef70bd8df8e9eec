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

/** For settings files: this node and this package's bin, both absolute (whatever PATH Claude Code has). */
export function memtraceMcpEntry(nodePath: string, packageRoot: string): McpServerEntry {
  return { type: 'stdio', command: nodePath, args: [path.join(packageRoot, 'bin', 'memtrace.cjs'), 'mcp'], env: {} };
}

/** For the plugin: its own copy of the package, wherever Claude Code unpacked it. */
export const PLUGIN_MCP_ENTRY = { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/bin/memtrace.cjs', 'mcp'] } as const;

/** An entry install wrote (any version, any path): it runs memtrace's bin with `mcp`. */
export function isMemtraceMcpEntry(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null) return false;
  const { args } = entry as { args?: unknown };
  if (!Array.isArray(args) || args.length < 2) return false;
  const at = args.findIndex((a) => typeof a === 'string' && /(?:^|\/)memtrace\.[cm]js$/.test(a));
  return at >= 0 && args[at + 1] === 'mcp';
}
