/**
 * Where OpenCode and pi load memtrace (AGENT-HOSTS-2.md §2.1, §2.5, §4.1), and the edit of each
 * file for an install or an uninstall. Pure: files come in as snapshots read by the caller.
 * - OpenCode: the plugin `plugins/memtrace.js` in its config folder (`$XDG_CONFIG_HOME/opencode`,
 *   `~/.config/opencode`; `DIR/.opencode/` with `--project`), and the MCP server `mcp.memtrace`
 *   in `opencode.json` there (`DIR/opencode.json`).
 * - pi: the extension `extensions/memtrace.js` in its agent folder (`$PI_CODING_AGENT_DIR`,
 *   `~/.pi/agent`; `DIR/.pi/` with `--project`). pi has no MCP.
 */
import { isMemtraceInProcessFile, type InProcessHost } from './in-process-file.js';
import type { FileEdit, HostEditResult } from './host-config-files.js';
import { parseJsonText, renderJson, DEFAULT_JSON_FORMAT } from './json-text.js';
import { isMemtraceMcpEntry, MCP_SERVER_KEY } from './mcp-definition.js';
import type { FileSnapshot } from './settings-file.js';
import { isJsonObject, type JsonObject } from './settings-merge.js';

export interface InProcessPaths {
  /** The plugin or extension file. */
  pluginFile: string;
  /** OpenCode's config file holding `mcp`; null for pi. */
  mcpFile: string | null;
}

const join = (...parts: string[]) => parts.join('/').replace(/\/+/g, '/');

export function inProcessConfigPaths(
  host: InProcessHost,
  where: { projectDir: string | null; home: string; env: Record<string, string | undefined>; exists(file: string): boolean },
): InProcessPaths {
  if (host === 'pi') {
    const agentDir = where.projectDir !== null ? join(where.projectDir, '.pi') : where.env.PI_CODING_AGENT_DIR?.trim() || join(where.home, '.pi', 'agent');
    return { pluginFile: join(agentDir, 'extensions', 'memtrace.js'), mcpFile: null };
  }
  const xdg = where.env.XDG_CONFIG_HOME?.trim();
  const configDir = where.projectDir !== null ? where.projectDir : join(xdg?.startsWith('/') ? xdg : join(where.home, '.config'), 'opencode');
  const pluginDir = where.projectDir !== null ? join(where.projectDir, '.opencode', 'plugins') : join(configDir, 'plugins');
  // OpenCode reads opencode.json or opencode.jsonc: the one that is there, else a new opencode.json.
  const json = join(configDir, 'opencode.json');
  const jsonc = join(configDir, 'opencode.jsonc');
  return { pluginFile: join(pluginDir, 'memtrace.js'), mcpFile: !where.exists(json) && where.exists(jsonc) ? jsonc : json };
}

/** memtrace's MCP server as OpenCode starts it (`type: local`, the command as one list). */
export interface OpenCodeMcpEntry {
  type: 'local';
  command: string[];
  environment: Record<string, string>;
  enabled: true;
}

function isMemtraceOpenCodeMcp(value: unknown): boolean {
  if (!isJsonObject(value) || !Array.isArray(value.command)) return false;
  const [command, ...args] = value.command as unknown[];
  return isMemtraceMcpEntry({ command, args });
}

function mcpEdit(
  action: 'install' | 'uninstall',
  snapshot: FileSnapshot,
  entry: OpenCodeMcpEntry,
): { ok: true; edit: FileEdit } | { ok: false; error: string } {
  const text = snapshot.bytes === null ? null : snapshot.bytes.toString('utf8');
  let config: JsonObject = {};
  let format = DEFAULT_JSON_FORMAT;
  if (text !== null) {
    const parsed = parseJsonText(text);
    if (!parsed.ok) return { ok: false, error: `is not valid JSON: line ${parsed.line}, column ${parsed.column}: ${parsed.reason}` };
    if (!isJsonObject(parsed.value)) return { ok: false, error: 'does not hold a JSON object' };
    config = parsed.value;
    format = parsed.format;
  }
  const unchanged = { ok: true as const, edit: { snapshot, nextText: text ?? '', changes: [], notices: [] as string[], relaidOut: false } };
  const servers = config.mcp;
  if (servers !== undefined && !isJsonObject(servers)) return { ok: false, error: '"mcp" is not an object; fix it by hand first' };
  const current = servers?.[MCP_SERVER_KEY];
  if (current !== undefined && !isMemtraceOpenCodeMcp(current)) {
    unchanged.edit.notices.push(
      action === 'install'
        ? `"mcp.${MCP_SERVER_KEY}" is already there and is not memtrace's server; left as it is (memtrace's tools are not registered).`
        : `left in place: the MCP server "mcp.${MCP_SERVER_KEY}" here was not written by memtrace install`,
    );
    return unchanged;
  }
  let next: JsonObject;
  let change: 'added' | 'updated' | 'removed';
  if (action === 'install') {
    if (JSON.stringify(current) === JSON.stringify(entry)) return unchanged;
    next = { ...config, mcp: { ...(servers ?? {}), [MCP_SERVER_KEY]: entry } };
    change = current === undefined ? 'added' : 'updated';
  } else {
    if (current === undefined) return unchanged;
    const { [MCP_SERVER_KEY]: _removed, ...others } = servers!;
    next = { ...config, mcp: others };
    if (Object.keys(others).length === 0) delete next.mcp;
    change = 'removed';
  }
  return {
    ok: true,
    edit: {
      snapshot,
      nextText: renderJson(next, format),
      changes: [{ event: `mcp.${MCP_SERVER_KEY}`, action: change }],
      notices: [],
      relaidOut: text !== null && text !== renderJson(config, format),
    },
  };
}

function pluginEdit(
  action: 'install' | 'uninstall',
  host: InProcessHost,
  snapshot: FileSnapshot,
  wanted: string,
): { ok: true; edit: FileEdit } | { ok: false; error: string } {
  const text = snapshot.bytes === null ? null : snapshot.bytes.toString('utf8');
  const what = host === 'opencode' ? 'plugin' : 'extension';
  const unchanged = { ok: true as const, edit: { snapshot, nextText: text ?? '', changes: [], notices: [] as string[], relaidOut: false } };
  if (text !== null && !isMemtraceInProcessFile(host, text)) {
    if (action === 'install')
      return { ok: false, error: `is a ${what} memtrace install did not write; it was left as it is (move it aside to install memtrace's)` };
    unchanged.edit.notices.push(`left in place: this ${what} was not written by memtrace install`);
    return unchanged;
  }
  if (action === 'install') {
    if (text === wanted) return unchanged;
    return {
      ok: true,
      edit: { snapshot, nextText: wanted, changes: [{ event: what, action: text === null ? 'added' : 'updated' }], notices: [], relaidOut: false },
    };
  }
  if (text === null) return unchanged;
  return { ok: true, edit: { snapshot, nextText: '', remove: true, changes: [{ event: what, action: 'removed' }], notices: [], relaidOut: false } };
}

export function inProcessConfigEdits(
  action: 'install' | 'uninstall',
  host: InProcessHost,
  files: { plugin: FileSnapshot; mcp: FileSnapshot | null },
  wanted: { pluginText: string; mcp: OpenCodeMcpEntry | null },
): HostEditResult {
  const plugin = pluginEdit(action, host, files.plugin, wanted.pluginText);
  if (!plugin.ok) return { ok: false, file: files.plugin.file, error: plugin.error };
  const edits = [plugin.edit];
  if (files.mcp && wanted.mcp) {
    const mcp = mcpEdit(action, files.mcp, wanted.mcp);
    if (!mcp.ok) return { ok: false, file: files.mcp.file, error: mcp.error };
    edits.push(mcp.edit);
  }
  return { ok: true, edits };
}
