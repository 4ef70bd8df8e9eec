/**
 * memtrace's MCP server in and out of a parsed Claude Code config object (`~/.claude.json` or a
 * project's `.mcp.json`, both `{"mcpServers": {name: entry}}`). Pure. memtrace owns the entry
 * named `memtrace` only when it runs memtrace's bin with `mcp`; an entry of that name that install
 * did not write is left alone (with a warning). Uninstall drops `mcpServers` only when removing
 * memtrace's entry emptied it, so install then uninstall gives back the original object.
 */
import { isMemtraceMcpEntry, MCP_SERVER_KEY, type McpServerEntry } from './mcp-definition.js';
import { isJsonObject, type JsonObject } from './settings-merge.js';

export type McpMergeResult = { ok: true; config: JsonObject; change: 'added' | 'updated' | 'removed' | null; notices: string[] } | { ok: false; error: string };

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function readServers(config: JsonObject): { ok: true; servers: JsonObject | undefined } | { ok: false; error: string } {
  const servers = config.mcpServers;
  if (servers === undefined) return { ok: true, servers: undefined };
  if (!isJsonObject(servers)) return { ok: false, error: '"mcpServers" is not an object; fix it by hand first' };
  return { ok: true, servers };
}

/** `entry` is the host's form of memtrace's server (Claude Code's, or Copilot's with `type: local` and `tools`). */
export function installMcpServer(config: JsonObject, entry: McpServerEntry | JsonObject): McpMergeResult {
  const read = readServers(config);
  if (!read.ok) return read;
  const current = read.servers?.[MCP_SERVER_KEY];
  if (current !== undefined && !isMemtraceMcpEntry(current)) {
    return {
      ok: true,
      config,
      change: null,
      notices: [
        `an MCP server named "${MCP_SERVER_KEY}" that memtrace install did not write is configured here; it was left as it is (remove it, then install again, to get memtrace's)`,
      ],
    };
  }
  if (current !== undefined && sameJson(current, entry)) return { ok: true, config, change: null, notices: [] };
  const servers: JsonObject = { ...(read.servers ?? {}) };
  Object.defineProperty(servers, MCP_SERVER_KEY, { value: JSON.parse(JSON.stringify(entry)), writable: true, enumerable: true, configurable: true });
  return { ok: true, config: { ...config, mcpServers: servers }, change: current === undefined ? 'added' : 'updated', notices: [] };
}

export function uninstallMcpServer(config: JsonObject): McpMergeResult {
  const read = readServers(config);
  if (!read.ok) return read;
  const current = read.servers?.[MCP_SERVER_KEY];
  if (current === undefined) return { ok: true, config, change: null, notices: [] };
  if (!isMemtraceMcpEntry(current))
    return { ok: true, config, change: null, notices: [`left in place: the MCP server "${MCP_SERVER_KEY}" here was not written by memtrace install`] };
  const servers: JsonObject = { ...read.servers };
  delete servers[MCP_SERVER_KEY];
  const next: JsonObject = { ...config, mcpServers: servers };
  if (Object.keys(servers).length === 0) delete next.mcpServers;
  return { ok: true, config: next, change: 'removed', notices: [] };
}
