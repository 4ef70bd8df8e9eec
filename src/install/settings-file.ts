/**
 * Claude Code's settings.json on disk: read it (a missing file is `{}`; anything we cannot parse
 * is refused untouched, with the line and column), and replace it atomically (temp file + rename,
 * same mode, through a symlink to its target) after a backup of the previous bytes.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_JSON_FORMAT, parseJsonText, renderJson, type JsonFormat } from './json-text.js';
import { unifiedDiff } from './line-diff.js';
import { isJsonObject, type JsonObject } from './settings-merge.js';

/** Why a settings file was not touched; the message names the file. */
export class SettingsFileError extends Error {
  constructor(
    readonly file: string,
    readonly kind: 'unreadable' | 'malformed' | 'not-an-object' | 'changed' | 'write-failed',
    message: string,
  ) {
    super(message);
    this.name = 'SettingsFileError';
  }
}

/** A file as read: what a diff and an atomic replace need, whatever its format. */
export interface FileSnapshot {
  file: string;
  /** The exact bytes read, or null when there was no file. */
  bytes: Buffer | null;
  mode: number | null;
}

export interface SettingsSnapshot extends FileSnapshot {
  value: JsonObject;
  format: JsonFormat;
}

/** Any text file's bytes and mode (a missing file is null bytes); unreadable is refused. */
export function readFileSnapshot(file: string): FileSnapshot {
  try {
    const bytes = fs.readFileSync(file);
    return { file, bytes, mode: fs.statSync(file).mode & 0o7777 };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { file, bytes: null, mode: null };
    throw new SettingsFileError(file, 'unreadable', `cannot read ${file}: ${code ?? (error as Error).message}`);
  }
}

export function readSettingsFile(file: string): SettingsSnapshot {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { file, bytes: null, value: {}, format: DEFAULT_JSON_FORMAT, mode: null };
    throw new SettingsFileError(file, 'unreadable', `cannot read ${file}: ${code ?? (error as Error).message}`);
  }
  const parsed = parseJsonText(bytes.toString('utf8'));
  if (!parsed.ok) {
    throw new SettingsFileError(
      file,
      'malformed',
      `${file} is not valid JSON: line ${parsed.line}, column ${parsed.column}: ${parsed.reason}. Nothing was changed; fix the file (or move it aside) and run the command again.`,
    );
  }
  if (!isJsonObject(parsed.value)) {
    const what = Array.isArray(parsed.value) ? 'a list' : parsed.value === null ? 'null' : `a ${typeof parsed.value}`;
    throw new SettingsFileError(file, 'not-an-object', `${file} holds ${what}, not a JSON object of settings. Nothing was changed.`);
  }
  return { file, bytes, value: parsed.value, format: parsed.format, mode: fs.statSync(file).mode & 0o7777 };
}

/** The text the file would hold with `next`, in the file's own layout. */
export function renderSettings(snapshot: SettingsSnapshot, next: JsonObject): string {
  return renderJson(next, snapshot.format);
}

/** A unified diff of the change, for --dry-run. */
export function settingsDiff(snapshot: FileSnapshot, nextText: string): string {
  const before = snapshot.bytes === null ? '' : snapshot.bytes.toString('utf8');
  return unifiedDiff(before, nextText, { from: snapshot.bytes === null ? '/dev/null' : `${snapshot.file} (now)`, to: `${snapshot.file} (after)` });
}

/** `settings.json.memtrace-backup-20250101T120000Z` */
export function backupName(file: string, now: Date): string {
  return `${file}.memtrace-backup-${now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '')}`;
}

/**
 * Backs up the previous bytes, then replaces the file atomically. Refuses when the file changed
 * since `snapshot` was read (Claude Code may write it too), so nothing it wrote is lost.
 */
export function writeSettingsFile(snapshot: FileSnapshot, nextText: string, now: Date): { backupPath: string | null } {
  const { file } = snapshot;
  let current: Buffer | null = null;
  try {
    current = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new SettingsFileError(file, 'unreadable', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
  const same = current === null ? snapshot.bytes === null : snapshot.bytes !== null && current.equals(snapshot.bytes);
  if (!same) throw new SettingsFileError(file, 'changed', `${file} changed while memtrace was reading it; nothing was written. Run the command again.`);

  fs.mkdirSync(path.dirname(file), { recursive: true });
  const backupPath = snapshot.bytes === null ? null : writeBackup(file, snapshot.bytes, snapshot.mode, now);
  // Write through a symlink (dotfile managers link settings.json) instead of replacing the link.
  const target = snapshot.bytes === null ? file : fs.realpathSync(file);
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.memtrace-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = fs.openSync(temp, 'wx', snapshot.mode ?? 0o666);
    try {
      if (snapshot.mode !== null) fs.fchmodSync(fd, snapshot.mode);
      fs.writeSync(fd, nextText);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw new SettingsFileError(
      file,
      'write-failed',
      `could not write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; the previous file is unchanged.`,
    );
  }
  return { backupPath };
}

/** Backs up the file, then removes it (an uninstalled plugin, an emptied hooks file of memtrace's own); refuses when it changed since `snapshot` was read. */
export function removeSettingsFile(snapshot: FileSnapshot, now: Date): { backupPath: string | null } {
  const { file } = snapshot;
  let current: Buffer | null = null;
  try {
    current = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { backupPath: null };
    throw new SettingsFileError(file, 'unreadable', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
  if (snapshot.bytes === null || !current.equals(snapshot.bytes))
    throw new SettingsFileError(file, 'changed', `${file} changed while memtrace was reading it; nothing was removed. Run the command again.`);
  const backupPath = writeBackup(file, snapshot.bytes, snapshot.mode, now);
  try {
    fs.rmSync(file);
  } catch (error) {
    throw new SettingsFileError(file, 'write-failed', `could not remove ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return { backupPath };
}

function writeBackup(file: string, bytes: Buffer, mode: number | null, now: Date): string {
  const base = backupName(file, now);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    try {
      fs.writeFileSync(candidate, bytes, { flag: 'wx', mode: mode ?? 0o600 });
      if (mode !== null) fs.chmodSync(candidate, mode);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new SettingsFileError(
          file,
          'write-failed',
          `could not back up ${file} to ${candidate}: ${(error as NodeJS.ErrnoException).code}; nothing was changed.`,
        );
      }
    }
  }
}
