import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, UsageError, type CliIO, type Command } from '../command.js';
import {
  findPackageRoot,
  HOOK_FORWARDER,
  installHooks,
  installMcpServer,
  isEphemeralInstall,
  MCP_SERVER_KEY,
  memtraceHooks,
  memtraceMcpEntry,
  readSettingsFile,
  renderSettings,
  settingsDiff,
  SettingsFileError,
  uninstallHooks,
  uninstallMcpServer,
  writeSettingsFile,
  INSTALL_HOSTS,
  type HookChange,
  type InstallHost,
  type JsonObject,
  type SettingsSnapshot,
} from '../../install/index.js';
import { runHostInstall } from './host-install.js';
import { IN_PROCESS_HOSTS, type InProcessHost } from '../../install/in-process-file.js';
import { buildForwarderStep, installedForwarder } from './native-forwarder-step.js';
import { loadWorkerConfig } from '../../config.js';
import { chooseObserver } from '../../providers/index.js';
import { HOSTS } from '../../hosts/index.js';

type Action = 'install' | 'uninstall';

/** The hosts besides Claude Code, in the hosts' own order: command hooks or an in-process plugin. */
const OTHER_HOSTS = HOSTS.filter((host) => (INSTALL_HOSTS as readonly string[]).includes(host) || (IN_PROCESS_HOSTS as readonly string[]).includes(host));

const OPTIONS = `options:
  --host H        the agent: claude-code (default), gemini-cli, codex, opencode, copilot or pi
  --project DIR   the project's config (DIR/.claude/settings.json and DIR/.mcp.json,
                  DIR/.gemini/settings.json, DIR/.codex/, DIR/.opencode/plugins/ and
                  DIR/opencode.json, DIR/.github/hooks/memtrace.json and DIR/.github/mcp.json,
                  DIR/.pi/extensions/) instead of the user's
  --dry-run       print the change as a unified diff; write nothing
  -h, --help      show this help`;

const INSTALL_USAGE = `usage: memtrace install [--host claude-code|gemini-cli|codex|opencode|copilot|pi] [--project DIR] [--dry-run]

Writes memtrace's Claude Code hooks into the user settings, ~/.claude/settings.json
($CLAUDE_CONFIG_DIR/settings.json when that is set), and registers memtrace's MCP server (the
tools mcp__memtrace__search, timeline, get_observations) as "${MCP_SERVER_KEY}" in ~/.claude.json
($CLAUDE_CONFIG_DIR/.claude.json). With --project, a project's .claude/settings.json and .mcp.json.
Every other setting, hook and server is kept; running it again changes nothing (an older memtrace
entry is updated in place). When a file changes, the previous one is kept next to it as
<file>.memtrace-backup-<UTC time>. Hooks and server run this node and this package by absolute
path. Using the memtrace Claude Code plugin instead? Then you need neither this nor uninstall.

--host gemini-cli writes the hooks and the \`memtrace mcp\` server (mcpServers.memtrace) into
~/.gemini/settings.json (DIR/.gemini/settings.json with --project); --host codex writes the hooks
into ~/.codex/hooks.json and [mcp_servers.memtrace] into ~/.codex/config.toml ($CODEX_HOME, or
DIR/.codex/ with --project), leaving every other line of config.toml as it is; --host copilot
writes the hooks into ~/.copilot/hooks/memtrace.json and the server into ~/.copilot/mcp-config.json
($COPILOT_HOME, or DIR/.github/hooks/memtrace.json and DIR/.github/mcp.json with --project). No
host runs a project's new hooks until you trust them; install never does that for you and prints
the one step.

OpenCode and pi have no command hooks: --host opencode writes memtrace's plugin, one file that
imports nothing, to ~/.config/opencode/plugins/memtrace.js ($XDG_CONFIG_HOME/opencode) and the
MCP server (mcp.memtrace) into opencode.json beside it; --host pi writes memtrace's extension to
~/.pi/agent/extensions/memtrace.js ($PI_CODING_AGENT_DIR), with memtrace's memory tools (pi has
no MCP). Both talk to the worker over its socket in the data dir, in the background.

${OPTIONS}`;

const UNINSTALL_USAGE = `usage: memtrace uninstall [--host claude-code|gemini-cli|codex|opencode|copilot|pi] [--project DIR] [--dry-run]

Removes exactly the hooks and the MCP server memtrace install wrote from the same files (and the
plugin or extension file it wrote for OpenCode or pi); every other setting, hook and server stays
as it is. The previous files are backed up the same way.

${OPTIONS}`;

const NEXT_STEP = "next: start a Claude Code session; memtrace's worker starts on the first SessionStart.";

function settingsCommand(action: Action): Command {
  return {
    name: action,
    summary:
      action === 'install'
        ? "write memtrace's hooks (a plugin for OpenCode and pi) and MCP server into an agent's config (backup, idempotent)"
        : 'remove exactly the hooks and MCP server memtrace install wrote',
    usage: action === 'install' ? INSTALL_USAGE : UNINSTALL_USAGE,
    run: (args, io) => runSettingsCommand(action, args, io),
  };
}

export const installCommand = settingsCommand('install');
export const uninstallCommand = settingsCommand('uninstall');

/** One file install edits: what is in it, what it would hold, and how to say what changed. */
interface Target {
  what: string;
  snapshot: SettingsSnapshot;
  next: JsonObject;
  summary: string | null;
}

type Values = { host?: string; project?: string; 'dry-run'?: boolean };

async function runSettingsCommand(action: Action, args: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(args, { host: { type: 'string' }, project: { type: 'string' }, 'dry-run': { type: 'boolean' } });
  let code: number;
  if (values.host !== undefined && values.host !== 'claude-code') {
    if (!(OTHER_HOSTS as readonly string[]).includes(values.host))
      throw new UsageError(`--host takes claude-code, ${OTHER_HOSTS.slice(0, -1).join(', ')} or ${OTHER_HOSTS.at(-1)}, got '${values.host}'`);
    const projectDir = values.project === undefined ? null : projectPath(values.project, io);
    code = await runHostInstall(action, values.host as InstallHost | InProcessHost, { projectDir, dryRun: values['dry-run'] === true }, io);
  } else {
    code = await runClaudeCodeSettings(action, values, io);
  }
  if (code === EXIT_OK && action === 'install' && values['dry-run'] !== true) buildForwarderStep(io);
  if (code === EXIT_OK && action === 'install') io.stdout.write(`${observerLine(values.host ?? 'claude-code', io)}\n`);
  return code;
}

/** Which observer the worker will run for this host's sessions, and why (from this environment, which the agent's hooks pass on). */
function observerLine(host: string, io: CliIO): string {
  const loaded = loadWorkerConfig(io.env, io.env.HOME || os.homedir());
  if (!loaded.ok) return `observer: unknown — ${loaded.errors.join('; ')}`;
  const chosen = chooseObserver(io.env, { dataDir: loaded.config.dataDir });
  return 'error' in chosen ? `observer: none — ${chosen.error}` : chosen.choice.describe(host);
}

async function runClaudeCodeSettings(action: Action, values: Values, io: CliIO): Promise<number> {
  const files = configFiles(values.project, io);
  const fail = (message: string) => {
    io.stderr.write(`memtrace ${action}: ${message}\n`);
    return EXIT_FAILURE;
  };

  // Both files are read and merged before either is written: a file we cannot read changes nothing.
  let hooksFile: SettingsSnapshot;
  let mcpFile: SettingsSnapshot;
  try {
    hooksFile = readSettingsFile(files.settings);
    mcpFile = readSettingsFile(files.mcp);
  } catch (error) {
    if (error instanceof SettingsFileError) return fail(error.message);
    throw error;
  }
  let packageRoot: string | null = null;
  if (action === 'install') {
    packageRoot = findPackageRoot();
    if (!fs.existsSync(path.join(packageRoot, HOOK_FORWARDER)))
      return fail(`memtrace's hook forwarder ${path.join(packageRoot, HOOK_FORWARDER)} is missing; reinstall memtrace.`);
  }
  const hooks =
    packageRoot !== null ? installHooks(hooksFile.value, memtraceHooks(installedForwarder(packageRoot, io), 'settings')) : uninstallHooks(hooksFile.value);
  if (!hooks.ok) return fail(`${files.settings}: ${hooks.error}. Nothing was changed.`);
  const mcp = packageRoot !== null ? installMcpServer(mcpFile.value, memtraceMcpEntry(process.execPath, packageRoot)) : uninstallMcpServer(mcpFile.value);
  if (!mcp.ok) return fail(`${files.mcp}: ${mcp.error}. Nothing was changed.`);
  for (const notice of [...hooks.notices, ...mcp.notices]) io.stderr.write(`memtrace ${action}: warning: ${notice}\n`);
  if (packageRoot !== null && isEphemeralInstall(packageRoot)) {
    io.stderr.write(
      `memtrace ${action}: warning: this memtrace runs from npx's cache (${packageRoot}), which npm may clean; install it for good (npm install -g memtrace) or use the plugin, then run install again.\n`,
    );
  }

  const targets: Target[] = [
    { what: 'hooks', snapshot: hooksFile, next: hooks.settings, summary: hooks.changes.length > 0 ? describeChanges(hooks.changes) : null },
    { what: 'MCP server', snapshot: mcpFile, next: mcp.config, summary: mcp.change === null ? null : `${mcp.change} "${MCP_SERVER_KEY}"` },
  ];
  const out = (line: string) => io.stdout.write(`${line}\n`);
  const changing = targets.filter((t) => t.summary !== null);
  for (const t of targets.filter((t) => t.summary === null)) {
    if (action === 'install') out(`memtrace's ${t.what} ${t.what === 'hooks' ? 'are' : 'is'} already in ${t.snapshot.file}; nothing changed.`);
    else if (t.snapshot.bytes === null) out(`${t.snapshot.file} does not exist; nothing to remove.`);
    else out(`no ${t.what === 'hooks' ? 'hooks' : 'MCP server'} written by memtrace install in ${t.snapshot.file}; nothing changed.`);
  }
  if (changing.length === 0) {
    if (action === 'install') out(NEXT_STEP);
    return EXIT_OK;
  }

  for (const t of changing) {
    if (t.snapshot.bytes !== null && !t.snapshot.bytes.equals(Buffer.from(renderSettings(t.snapshot, t.snapshot.value)))) {
      io.stderr.write(
        `memtrace ${action}: note: ${t.snapshot.file} is laid out by hand; it is rewritten as plain indented JSON (the backup keeps it as it is).\n`,
      );
    }
  }
  if (values['dry-run']) {
    for (const t of changing) {
      out(`dry run: would change ${t.snapshot.file} (${t.summary}); nothing written.`);
      io.stdout.write(settingsDiff(t.snapshot, renderSettings(t.snapshot, t.next)));
    }
    return EXIT_OK;
  }
  for (const t of changing) {
    let backupPath: string | null;
    try {
      ({ backupPath } = writeSettingsFile(t.snapshot, renderSettings(t.snapshot, t.next), new Date()));
    } catch (error) {
      if (error instanceof SettingsFileError) return fail(error.message);
      throw error;
    }
    // Claude Code keeps ~/.claude.json private; one memtrace creates is created the same way.
    if (t.snapshot.bytes === null && t.snapshot.file === files.mcp && values.project === undefined) fs.chmodSync(t.snapshot.file, 0o600);
    out(`${action === 'install' ? 'installed' : 'uninstalled'} memtrace's ${t.what} in ${t.snapshot.file} (${t.summary}).`);
    out(backupPath === null ? 'backup: none (there was no previous file).' : `backup of the previous file: ${backupPath}`);
  }
  if (action === 'install') {
    if (values.project !== undefined) {
      out('note: the hooks and the MCP server run node and memtrace by absolute paths on this machine; commit these files only if teammates share them.');
      if (changing.some((t) => t.what === 'MCP server'))
        out(
          `approve: Claude Code may ask once before it starts a project's MCP servers; accept "${MCP_SERVER_KEY}" when it asks (memtrace does not approve it for you).`,
        );
    }
    out(NEXT_STEP);
    out(`undo: memtrace uninstall${values.project !== undefined ? ` --project ${values.project}` : ''}`);
  } else {
    out('every other setting, hook and server in the files is unchanged.');
  }
  return EXIT_OK;
}

function projectPath(project: string, io: CliIO): string {
  if (project === '') throw new UsageError('--project takes a directory');
  const dir = path.resolve(io.cwd, project);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new UsageError(`--project: no such directory '${project}'`);
  }
  if (!stat.isDirectory()) throw new UsageError(`--project: '${project}' is not a directory`);
  return dir;
}

/** Claude Code's two files: settings (hooks) and its MCP servers, for a project or the user. */
function configFiles(project: string | undefined, io: CliIO): { settings: string; mcp: string } {
  if (project !== undefined) {
    const dir = projectPath(project, io);
    return { settings: path.join(dir, '.claude', 'settings.json'), mcp: path.join(dir, '.mcp.json') };
  }
  if (io.env.CLAUDE_CONFIG_DIR) {
    const configDir = path.resolve(io.cwd, io.env.CLAUDE_CONFIG_DIR);
    return { settings: path.join(configDir, 'settings.json'), mcp: path.join(configDir, '.claude.json') };
  }
  const home = io.env.HOME || io.env.USERPROFILE || os.homedir();
  return { settings: path.join(home, '.claude', 'settings.json'), mcp: path.join(home, '.claude.json') };
}

function describeChanges(changes: HookChange[]): string {
  const byAction = new Map<string, string[]>();
  for (const { event, action } of changes) byAction.set(action, [...(byAction.get(action) ?? []), event]);
  return [...byAction].map(([action, events]) => `${action} ${events.join(', ')}`).join('; ');
}
