/**
 * Where Gemini CLI, Codex and Copilot CLI read memtrace's hooks and MCP server (AGENT-HOSTS.md §2,
 * §3; AGENT-HOSTS-2.md §3), and the edit of each file for an install or an uninstall. Pure: files
 * come in as snapshots read by the caller; what comes out is the text each file would hold.
 * `--project DIR` writes the project's host config, else the user's.
 */
import path from 'node:path';
import { parseJsonText, renderJson, DEFAULT_JSON_FORMAT } from './json-text.js';
import type { Forwarder } from './hook-definitions.js';
import { installGemini, uninstallGemini } from './gemini-settings.js';
import { hostHooks, ownsHostHookCommand, type HostMcpEntry, type InstallHost } from './host-hooks.js';
import { installHooks, isJsonObject, uninstallHooks, type HookChange, type MergeResult } from './settings-merge.js';
import type { FileSnapshot } from './settings-file.js';
import { removeTomlTable, setTomlTable } from './toml-table.js';
import { installCopilotHooks, isEmptyHookFile, uninstallCopilotHooks } from './copilot-hooks.js';
import { installMcpServer, uninstallMcpServer } from './mcp-merge.js';

export type HostAction = 'install' | 'uninstall';

export interface HostConfigPaths {
  /** Gemini: settings.json (hooks and MCP); Codex: hooks.json; Copilot: hooks/memtrace.json. */
  hooksFile: string;
  /** Codex: config.toml (MCP); Copilot: mcp-config.json (a project's .github/mcp.json); Gemini keeps both in settings.json. */
  mcpFile: string | null;
}

const join = (...parts: string[]) => parts.join('/').replace(/\/+/g, '/');

/** The hosts' own home variables ($CODEX_HOME, $COPILOT_HOME), a relative one taken from `cwd`; null when unset. */
export function hostHomes(env: Record<string, string | undefined>, cwd: string): { codexHome: string | null; copilotHome: string | null } {
  const homeOf = (value: string | undefined) => (value ? path.resolve(cwd, value) : null);
  return { codexHome: homeOf(env.CODEX_HOME), copilotHome: homeOf(env.COPILOT_HOME) };
}

export function hostConfigPaths(
  host: InstallHost,
  where: { projectDir: string | null; home: string; codexHome: string | null; copilotHome: string | null },
): HostConfigPaths {
  if (host === 'gemini-cli') return { hooksFile: join(where.projectDir ?? where.home, '.gemini', 'settings.json'), mcpFile: null };
  if (host === 'copilot') {
    // A repository's hooks and MCP servers live in .github/ (loaded only in a folder the user trusts).
    if (where.projectDir !== null)
      return { hooksFile: join(where.projectDir, '.github', 'hooks', 'memtrace.json'), mcpFile: join(where.projectDir, '.github', 'mcp.json') };
    const dir = where.copilotHome ?? join(where.home, '.copilot');
    return { hooksFile: join(dir, 'hooks', 'memtrace.json'), mcpFile: join(dir, 'mcp-config.json') };
  }
  const dir = where.projectDir !== null ? join(where.projectDir, '.codex') : (where.codexHome ?? join(where.home, '.codex'));
  return { hooksFile: join(dir, 'hooks.json'), mcpFile: join(dir, 'config.toml') };
}

export interface FileEdit {
  snapshot: FileSnapshot;
  /** The text the file would hold; equal to what it holds when nothing changes. */
  nextText: string;
  changes: HookChange[];
  notices: string[];
  /** The file is laid out by hand and is rewritten as plain indented JSON (JSON files only). */
  relaidOut: boolean;
  /** Uninstall removes the whole file, backed up: a plugin or extension memtrace wrote, or memtrace's own file (Copilot's hooks/memtrace.json) left with nothing in it. */
  remove?: boolean;
}

export type HostEditResult = { ok: true; edits: FileEdit[] } | { ok: false; file: string; error: string };

/** A JSON file's edit through a merge; a malformed file or a refused merge is an error naming the file. */
function jsonEdit(snapshot: FileSnapshot, merge: (value: Record<string, unknown>) => MergeResult): { ok: true; edit: FileEdit } | { ok: false; error: string } {
  const text = snapshot.bytes === null ? null : snapshot.bytes.toString('utf8');
  let value: Record<string, unknown> = {};
  let format = DEFAULT_JSON_FORMAT;
  if (text !== null) {
    const parsed = parseJsonText(text);
    if (!parsed.ok) return { ok: false, error: `is not valid JSON: line ${parsed.line}, column ${parsed.column}: ${parsed.reason}` };
    if (!isJsonObject(parsed.value)) return { ok: false, error: 'does not hold a JSON object' };
    value = parsed.value;
    format = parsed.format;
  }
  const merged = merge(value);
  if (!merged.ok) return { ok: false, error: merged.error };
  if (merged.changes.length === 0) return { ok: true, edit: { snapshot, nextText: text ?? '', changes: [], notices: merged.notices, relaidOut: false } };
  return {
    ok: true,
    edit: {
      snapshot,
      nextText: renderJson(merged.settings, format),
      changes: merged.changes,
      notices: merged.notices,
      relaidOut: text !== null && text !== renderJson(value, format),
    },
  };
}

export function hostConfigEdits(
  action: HostAction,
  host: InstallHost,
  files: { hooks: FileSnapshot; mcp: FileSnapshot | null },
  forwarder: Forwarder,
  mcp: HostMcpEntry,
): HostEditResult {
  if (host === 'copilot') return copilotEdits(action, files, forwarder, mcp);
  const edits: FileEdit[] = [];
  const hooks =
    host === 'gemini-cli'
      ? jsonEdit(files.hooks, (value) => (action === 'install' ? installGemini(value, forwarder, mcp) : uninstallGemini(value)))
      : jsonEdit(files.hooks, (value) =>
          action === 'install'
            ? installHooks(value, hostHooks('codex', forwarder), ownsHostHookCommand('codex'))
            : uninstallHooks(value, ownsHostHookCommand('codex')),
        );
  if (!hooks.ok) return { ok: false, file: files.hooks.file, error: hooks.error };
  edits.push(hooks.edit);
  if (files.mcp) {
    const text = files.mcp.bytes === null ? '' : files.mcp.bytes.toString('utf8');
    const table = action === 'install' ? setTomlTable(text, ['mcp_servers', 'memtrace'], { ...mcp }) : removeTomlTable(text, ['mcp_servers', 'memtrace']);
    if (!table.ok) return { ok: false, file: files.mcp.file, error: table.error };
    edits.push({
      snapshot: files.mcp,
      nextText: table.text,
      changes: table.action ? [{ event: '[mcp_servers.memtrace]', action: table.action }] : [],
      notices: [],
      relaidOut: false,
    });
  }
  return { ok: true, edits };
}

/** Copilot CLI: its hook file and its MCP servers file, both JSON. */
function copilotEdits(action: HostAction, files: { hooks: FileSnapshot; mcp: FileSnapshot | null }, forwarder: Forwarder, mcp: HostMcpEntry): HostEditResult {
  const hooks = jsonEdit(files.hooks, (value) => (action === 'install' ? installCopilotHooks(value, forwarder) : uninstallCopilotHooks(value)));
  if (!hooks.ok) return { ok: false, file: files.hooks.file, error: hooks.error };
  const edits: FileEdit[] = [hooks.edit];
  if (action === 'uninstall' && hooks.edit.changes.length > 0) {
    const left = parseJsonText(hooks.edit.nextText);
    if (left.ok && isJsonObject(left.value) && isEmptyHookFile(left.value)) hooks.edit.remove = true;
  }
  if (files.mcp) {
    // Copilot's form of the entry: `local` (stdio), with every tool of the server offered.
    const entry = { type: 'local', ...mcp, tools: ['*'] };
    const servers = jsonEdit(files.mcp, (value) => {
      const merged = action === 'install' ? installMcpServer(value, entry) : uninstallMcpServer(value);
      if (!merged.ok) return merged;
      return {
        ok: true,
        settings: merged.config,
        changes: merged.change ? [{ event: 'mcpServers.memtrace', action: merged.change }] : [],
        notices: merged.notices,
      };
    });
    if (!servers.ok) return { ok: false, file: files.mcp.file, error: servers.error };
    edits.push(servers.edit);
  }
  return { ok: true, edits };
}

/** The one step the user takes so the host runs what install wrote: install never writes trust. */
export function trustStep(host: InstallHost, projectDir: string | null): string {
  if (host === 'copilot') {
    return projectDir !== null
      ? `next: Copilot CLI runs a repository's hooks and MCP servers only in a folder you trust: start copilot in ${projectDir} and trust the folder when it asks (in copilot -p, its MCP servers also need GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP=true).`
      : "next: start a Copilot CLI session; memtrace's worker starts on its first sessionStart (user hooks need no folder trust).";
  }
  if (host === 'codex') {
    return projectDir !== null
      ? `next: Codex runs new hooks only once you trust them: open codex in ${projectDir}, trust the project, and approve memtrace's hooks in /hooks.`
      : "next: Codex runs new hooks only once you trust them: open codex and approve memtrace's hooks in /hooks.";
  }
  return projectDir !== null
    ? `next: Gemini CLI runs a project's hooks only in a trusted folder: trust ${projectDir} when Gemini CLI asks (or with /permissions).`
    : "next: start a Gemini CLI session; memtrace's worker starts on the first SessionStart.";
}
