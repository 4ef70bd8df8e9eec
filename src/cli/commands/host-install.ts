import fs from 'node:fs';
import { installedForwarder } from './native-forwarder-step.js';
import os from 'node:os';
import path from 'node:path';
import { EXIT_FAILURE, EXIT_OK, type CliIO } from '../command.js';
import {
  findPackageRoot,
  HOOK_FORWARDER,
  isEphemeralInstall,
  readFileSnapshot,
  removeSettingsFile,
  settingsDiff,
  SettingsFileError,
  writeSettingsFile,
} from '../../install/index.js';
import {
  hostConfigEdits,
  hostConfigPaths,
  hostHomes,
  trustStep,
  type FileEdit,
  type HostAction,
  type HostEditResult,
} from '../../install/host-config-files.js';
import { hostMcpEntry, type InstallHost } from '../../install/host-hooks.js';
import type { FileSnapshot } from '../../install/settings-file.js';
import { isInProcessHost, type InProcessHost } from '../../install/in-process-file.js';
import { inProcessEdits, inProcessNextStep } from './in-process-install.js';

const HOST_NAMES: Readonly<Record<InstallHost | InProcessHost, string>> = {
  'gemini-cli': 'Gemini CLI',
  codex: 'Codex',
  opencode: 'OpenCode',
  copilot: 'Copilot CLI',
  pi: 'pi',
};

/**
 * `memtrace install|uninstall --host gemini-cli|codex|opencode|copilot|pi [--project DIR] [--dry-run]`:
 * every file is read and its edit checked before any is written; each changed file is backed up,
 * then replaced atomically (or removed: an uninstalled plugin or extension, a Copilot hooks file
 * left empty). A file that cannot be parsed is left untouched and named with the reason.
 */
export async function runHostInstall(
  action: HostAction,
  host: InstallHost | InProcessHost,
  options: { projectDir: string | null; dryRun: boolean },
  io: CliIO,
): Promise<number> {
  const fail = (message: string) => {
    io.stderr.write(`memtrace ${action}: ${message}\n`);
    return EXIT_FAILURE;
  };
  const out = (line: string) => io.stdout.write(`${line}\n`);
  const home = io.env.HOME || io.env.USERPROFILE || os.homedir();
  const packageRoot = findPackageRoot();
  const forwarder = path.join(packageRoot, HOOK_FORWARDER);
  if (action === 'install' && !fs.existsSync(forwarder)) return fail(`memtrace's hook forwarder ${forwarder} is missing; reinstall memtrace.`);
  let result: HostEditResult;
  let what: string;
  if (isInProcessHost(host)) {
    const planned = await inProcessEdits(action, host, { projectDir: options.projectDir, home, packageRoot, forwarder, env: io.env });
    if ('error' in planned) return fail(planned.error);
    ({ result, what } = planned);
  } else {
    const paths = hostConfigPaths(host, { projectDir: options.projectDir, home, ...hostHomes(io.env, io.cwd) });
    let files: { hooks: FileSnapshot; mcp: FileSnapshot | null };
    try {
      files = { hooks: readFileSnapshot(paths.hooksFile), mcp: paths.mcpFile ? readFileSnapshot(paths.mcpFile) : null };
    } catch (error) {
      if (error instanceof SettingsFileError) return fail(error.message);
      throw error;
    }
    result = hostConfigEdits(action, host, files, installedForwarder(packageRoot, io), hostMcpEntry(process.execPath, forwarder, io.env));
    what = `memtrace's hooks${host === 'gemini-cli' || paths.mcpFile ? ' and MCP server' : ''}`;
  }
  if (!result.ok) return fail(`${result.file} ${result.error}. Nothing was changed; fix the file (or move it aside) and run the command again.`);
  for (const edit of result.edits) for (const notice of edit.notices) io.stderr.write(`memtrace ${action}: warning: ${edit.snapshot.file}: ${notice}\n`);
  if (action === 'install' && isEphemeralInstall(packageRoot)) {
    io.stderr.write(
      `memtrace ${action}: warning: this memtrace runs from npx's cache (${packageRoot}), which npm may clean; install it for good (npm install -g memtrace), then run install again.\n`,
    );
  }

  const changed = result.edits.filter((e) => e.changes.length > 0);
  const nextStep = () =>
    isInProcessHost(host) ? inProcessNextStep(host, { projectDir: options.projectDir, home, env: io.env }) : trustStep(host, options.projectDir);
  if (changed.length === 0) {
    out(
      action === 'install'
        ? `${what} are already in ${HOST_NAMES[host]}'s config (${result.edits.map((e) => e.snapshot.file).join(', ')}); nothing changed.`
        : `nothing written by memtrace install in ${result.edits.map((e) => e.snapshot.file).join(', ')}; nothing changed.`,
    );
    if (action === 'install') out(nextStep());
    return EXIT_OK;
  }
  for (const edit of changed)
    if (edit.relaidOut)
      io.stderr.write(
        `memtrace ${action}: note: ${edit.snapshot.file} is laid out by hand; it is rewritten as plain indented JSON (the backup keeps it as it is).\n`,
      );
  if (options.dryRun) {
    for (const edit of changed) {
      out(`dry run: would ${edit.remove ? 'remove' : 'change'} ${edit.snapshot.file} (${describe(edit)}); nothing written.`);
      io.stdout.write(settingsDiff(edit.snapshot, edit.remove ? '' : edit.nextText));
    }
    return EXIT_OK;
  }
  const now = new Date();
  for (const edit of changed) {
    let backupPath: string | null;
    try {
      ({ backupPath } = edit.remove ? removeSettingsFile(edit.snapshot, now) : writeSettingsFile(edit.snapshot, edit.nextText, now));
    } catch (error) {
      if (error instanceof SettingsFileError) return fail(error.message);
      throw error;
    }
    if (edit.remove) out(`removed ${edit.snapshot.file}: it held only ${removedWhat(host)} (${describe(edit)}).`);
    else out(`${action === 'install' ? 'installed' : 'uninstalled'} ${what} in ${edit.snapshot.file} (${describe(edit)}).`);
    out(backupPath === null ? 'backup: none (there was no previous file).' : `backup of the previous file: ${backupPath}`);
  }
  if (action === 'install') {
    out(nextStep());
    out(`undo: memtrace uninstall --host ${host}${options.projectDir !== null ? ` --project ${options.projectDir}` : ''}`);
  } else {
    out('every other setting, hook and server in these files is unchanged.');
  }
  return EXIT_OK;
}

function removedWhat(host: InstallHost | InProcessHost): string {
  if (!isInProcessHost(host)) return "memtrace's hooks";
  return host === 'opencode' ? "memtrace's plugin" : "memtrace's extension";
}

function describe(edit: FileEdit): string {
  const byAction = new Map<string, string[]>();
  for (const { event, action } of edit.changes) byAction.set(action, [...(byAction.get(action) ?? []), event]);
  return [...byAction].map(([action, events]) => `${action} ${events.join(', ')}`).join('; ');
}
