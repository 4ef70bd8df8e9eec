import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, UsageError, type CliIO, type Command } from '../command.js';
import {
  findPackageRoot,
  HOOK_FORWARDER,
  installHooks,
  isEphemeralInstall,
  memtraceHooks,
  readSettingsFile,
  renderSettings,
  settingsDiff,
  SettingsFileError,
  settingsForwarder,
  uninstallHooks,
  writeSettingsFile,
  INSTALL_HOSTS,
  type HookChange,
  type InstallHost,
  type MergeResult,
} from '../../install/index.js';
import { runHostInstall } from './host-install.js';

type Action = 'install' | 'uninstall';

const OPTIONS = `options:
  --host H        the agent: claude-code (default), gemini-cli or codex
  --project DIR   the project's config (DIR/.claude/settings.json, DIR/.gemini/settings.json,
                  DIR/.codex/) instead of the user's
  --dry-run       print the change as a unified diff; write nothing
  -h, --help      show this help`;

const INSTALL_USAGE = `usage: memtrace install [--host claude-code|gemini-cli|codex] [--project DIR] [--dry-run]

Writes memtrace's Claude Code hooks into the user settings, ~/.claude/settings.json
($CLAUDE_CONFIG_DIR/settings.json when that is set), or a project's .claude/settings.json.
Every other setting and hook is kept; running it again changes nothing (an older memtrace entry
is updated in place). When the file changes, the previous one is kept next to it as
settings.json.memtrace-backup-<UTC time>. The hooks run this node and this package by absolute
path. Using the memtrace Claude Code plugin instead? Then you need neither this nor uninstall.

--host gemini-cli writes the hooks and the \`memtrace mcp\` server (mcpServers.memtrace) into
~/.gemini/settings.json (DIR/.gemini/settings.json with --project); --host codex writes the hooks
into ~/.codex/hooks.json and [mcp_servers.memtrace] into ~/.codex/config.toml ($CODEX_HOME, or
DIR/.codex/ with --project), leaving every other line of config.toml as it is. Neither host runs
new project hooks until you trust them; install never does that for you and prints the one step.

${OPTIONS}`;

const UNINSTALL_USAGE = `usage: memtrace uninstall [--host claude-code|gemini-cli|codex] [--project DIR] [--dry-run]

Removes exactly the hooks (and, for gemini-cli and codex, the MCP server) memtrace install wrote
from the same files; every other setting and hook stays as it is. The previous file is backed up
the same way.

${OPTIONS}`;

const NEXT_STEP = "next: start a Claude Code session; memtrace's worker starts on the first SessionStart.";

function settingsCommand(action: Action): Command {
  return {
    name: action,
    summary: action === 'install' ? "write memtrace's hooks (and MCP server) into Claude Code's, Gemini CLI's or Codex's config (backup, idempotent)" : 'remove exactly the hooks (and MCP server) memtrace install wrote',
    usage: action === 'install' ? INSTALL_USAGE : UNINSTALL_USAGE,
    run: (args, io) => runSettingsCommand(action, args, io),
  };
}

export const installCommand = settingsCommand('install');
export const uninstallCommand = settingsCommand('uninstall');

async function runSettingsCommand(action: Action, args: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(args, { host: { type: 'string' }, project: { type: 'string' }, 'dry-run': { type: 'boolean' } });
  if (values.host !== undefined && values.host !== 'claude-code') {
    if (!(INSTALL_HOSTS as readonly string[]).includes(values.host)) throw new UsageError(`--host takes claude-code, gemini-cli or codex, got '${values.host}'`);
    const projectDir = values.project === undefined ? null : projectPath(values.project, io);
    return runHostInstall(action, values.host as InstallHost, { projectDir, dryRun: values['dry-run'] === true }, io);
  }
  const file = settingsPath(values.project, io);
  const fail = (message: string) => {
    io.stderr.write(`memtrace ${action}: ${message}\n`);
    return EXIT_FAILURE;
  };

  let snapshot;
  try {
    snapshot = readSettingsFile(file);
  } catch (error) {
    if (error instanceof SettingsFileError) return fail(error.message);
    throw error;
  }
  let merge: MergeResult;
  let packageRoot: string | null = null;
  if (action === 'install') {
    packageRoot = findPackageRoot();
    if (!fs.existsSync(path.join(packageRoot, HOOK_FORWARDER))) return fail(`memtrace's hook forwarder ${path.join(packageRoot, HOOK_FORWARDER)} is missing; reinstall memtrace.`);
    merge = installHooks(snapshot.value, memtraceHooks(settingsForwarder(process.execPath, packageRoot), 'settings'));
  } else {
    merge = uninstallHooks(snapshot.value);
  }
  if (!merge.ok) return fail(`${file}: ${merge.error}. Nothing was changed.`);
  for (const notice of merge.notices) io.stderr.write(`memtrace ${action}: warning: ${notice}\n`);
  if (packageRoot !== null && isEphemeralInstall(packageRoot)) {
    io.stderr.write(`memtrace ${action}: warning: this memtrace runs from npx's cache (${packageRoot}), which npm may clean; install it for good (npm install -g memtrace) or use the plugin, then run install again.\n`);
  }

  const out = (line: string) => io.stdout.write(`${line}\n`);
  if (merge.changes.length === 0) {
    if (action === 'install') {
      out(`memtrace's hooks are already in ${file}; nothing changed.`);
      out(NEXT_STEP);
    } else {
      out(snapshot.bytes === null ? `${file} does not exist; nothing to remove.` : `no hooks written by memtrace install in ${file}; nothing changed.`);
    }
    return EXIT_OK;
  }

  const nextText = renderSettings(snapshot, merge.settings);
  const summary = describeChanges(merge.changes);
  if (snapshot.bytes !== null && !snapshot.bytes.equals(Buffer.from(renderSettings(snapshot, snapshot.value)))) {
    io.stderr.write(`memtrace ${action}: note: ${file} is laid out by hand; it is rewritten as plain indented JSON (the backup keeps it as it is).\n`);
  }
  if (values['dry-run']) {
    out(`dry run: would change ${file} (${summary}); nothing written.`);
    io.stdout.write(settingsDiff(snapshot, nextText));
    return EXIT_OK;
  }
  let backupPath: string | null;
  try {
    ({ backupPath } = writeSettingsFile(snapshot, nextText, new Date()));
  } catch (error) {
    if (error instanceof SettingsFileError) return fail(error.message);
    throw error;
  }
  out(`${action === 'install' ? 'installed' : 'uninstalled'} memtrace's hooks in ${file} (${summary}).`);
  out(backupPath === null ? 'backup: none (there was no previous file).' : `backup of the previous file: ${backupPath}`);
  if (action === 'install') {
    if (values.project !== undefined) out('note: the hooks run node and memtrace by absolute paths on this machine; commit this file only if teammates share them.');
    out(NEXT_STEP);
    out(`undo: memtrace uninstall${values.project !== undefined ? ` --project ${values.project}` : ''}`);
  } else {
    out('every other setting and hook in the file is unchanged.');
  }
  return EXIT_OK;
}

/** `--project DIR` as an absolute directory that exists. */
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

/** `--project DIR` → DIR/.claude/settings.json; else the user settings, as Claude Code finds them. */
function settingsPath(project: string | undefined, io: CliIO): string {
  if (project !== undefined) return path.join(projectPath(project, io), '.claude', 'settings.json');
  const configDir = io.env.CLAUDE_CONFIG_DIR ? path.resolve(io.cwd, io.env.CLAUDE_CONFIG_DIR) : path.join(io.env.HOME || io.env.USERPROFILE || os.homedir(), '.claude');
  return path.join(configDir, 'settings.json');
}

function describeChanges(changes: HookChange[]): string {
  const byAction = new Map<string, string[]>();
  for (const { event, action } of changes) byAction.set(action, [...(byAction.get(action) ?? []), event]);
  return [...byAction].map(([action, events]) => `${action} ${events.join(', ')}`).join('; ');
}
