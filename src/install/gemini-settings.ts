/**
 * memtrace in Gemini CLI's settings.json (AGENT-HOSTS.md §2.1, §2.5): its hooks (merged like
 * Claude Code's, by settings-merge.ts) and `mcpServers.memtrace`. Pure. Every other key, hook and
 * MCP server is kept in its place; an `mcpServers.memtrace` that is not memtrace's is left alone.
 */
import type { Forwarder } from './hook-definitions.js';
import { hostHooks, ownsHostHookCommand, type HostMcpEntry } from './host-hooks.js';
import { isMemtraceMcpEntry } from './mcp-definition.js';
import { installHooks, isJsonObject, uninstallHooks, type JsonObject, type MergeResult } from './settings-merge.js';

const SERVER = 'memtrace';
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function installGemini(settings: JsonObject, forwarder: Forwarder, mcp: HostMcpEntry): MergeResult {
  const merged = installHooks(settings, hostHooks('gemini-cli', forwarder), ownsHostHookCommand('gemini-cli'));
  if (!merged.ok) return merged;
  const servers = merged.settings.mcpServers;
  if (servers !== undefined && !isJsonObject(servers)) return { ok: false, error: '"mcpServers" is not an object; fix it by hand first' };
  const current = servers?.[SERVER];
  if (current !== undefined && !isMemtraceMcpEntry(current)) {
    return {
      ...merged,
      notices: [
        ...merged.notices,
        `"mcpServers.${SERVER}" is already there and is not memtrace's server; left as it is (memtrace's tools are not registered).`,
      ],
    };
  }
  if (sameJson(current, mcp)) return merged;
  return {
    ...merged,
    settings: { ...merged.settings, mcpServers: { ...(servers ?? {}), [SERVER]: mcp } },
    changes: [...merged.changes, { event: `mcpServers.${SERVER}`, action: current === undefined ? 'added' : 'updated' }],
  };
}

export function uninstallGemini(settings: JsonObject): MergeResult {
  const merged = uninstallHooks(settings, ownsHostHookCommand('gemini-cli'));
  if (!merged.ok) return merged;
  const servers = merged.settings.mcpServers;
  if (!isJsonObject(servers) || !isMemtraceMcpEntry(servers[SERVER])) return merged;
  const { [SERVER]: _removed, ...others } = servers;
  const next: JsonObject = { ...merged.settings, mcpServers: others };
  if (Object.keys(others).length === 0) delete next.mcpServers;
  return { ...merged, settings: next, changes: [...merged.changes, { event: `mcpServers.${SERVER}`, action: 'removed' }] };
}
