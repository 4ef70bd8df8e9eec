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
  type HookChange,
  type MergeResult,
} from '../../install/index.js';

type Action = 'install' | 'uninstall';

const OPTIONS = `options:
  --project DIR   DIR/.claude/settings.json instead of the user settings
  --dry-run       print the change as a unified diff; write nothing
  -h, --help      show this help`;

const INSTALL_USAGE = `usage: memtrace install [--project DIR] [--dry-run]

Writes memtrace's Claude Code hooks into the user settings, ~/.claude/settings.json
($CLAUDE_CONFIG_DIR/settings.json when that is set), or a project's .claude/settings.json.
Every other setting and hook is kept; running it again changes nothing (an older memtrace entry
is updated in place). When the file changes, the previous one is kept next to it as
settings.json.memtrace-backup-<UTC time>. The hooks run this node and this package by absolute
path. Using the memtrace Claude Code plugin instead? Then you need neither this nor uninstall.

${OPTIONS}`;

const UNINSTALL_USAGE = `usage: memtrace uninstall [--project DIR] [--dry-run]

Removes exactly the hooks memtrace install wrote from the same settings file; every other
setting and hook stays as it is. The previous file is backed up the same way.

${OPTIONS}`;

const NEXT_STEP = "next: start a Claude Code session; memtrace's worker starts on the first SessionStart.";

function settingsCommand(action: Action): Command {
  return {
    name: action,
    summary: action === 'install' ? "write memtrace's hooks into Claude Code's settings.json (backup, idempotent)" : 'remove exactly the hooks memtrace install wrote',
    usage: action === 'install' ? INSTALL_USAGE : UNINSTALL_USAGE,
    run: (args, io) => runSettingsCommand(action, args, io),
  };
}

export const installCommand = settingsCommand('install');
export const uninstallCommand = settingsCommand('uninstall');

async function runSettingsCommand(action: Action, args: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(args, { project: { type: 'string' }, 'dry-run': { type: 'boolean' } });
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

/** `--project DIR` → DIR/.claude/settings.json; else the user settings, as Claude Code finds them. */
function settingsPath(project: string | undefined, io: CliIO): string {
  if (project !== undefined) {
    if (project === '') throw new UsageError('--project takes a directory');
    const dir = path.resolve(io.cwd, project);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(dir);
    } catch {
      throw new UsageError(`--project: no such directory '${project}'`);
    }
    if (!stat.isDirectory()) throw new UsageError(`--project: '${project}' is not a directory`);
    return path.join(dir, '.claude', 'settings.json');
  }
  const configDir = io.env.CLAUDE_CONFIG_DIR ? path.resolve(io.cwd, io.env.CLAUDE_CONFIG_DIR) : path.join(io.env.HOME || io.env.USERPROFILE || os.homedir(), '.claude');
  return path.join(configDir, 'settings.json');
}

function describeChanges(changes: HookChange[]): string {
  const byAction = new Map<string, string[]>();
  for (const { event, action } of changes) byAction.set(action, [...(byAction.get(action) ?? []), event]);
  return [...byAction].map(([action, events]) => `${action} ${events.join(', ')}`).join('; ');
}
