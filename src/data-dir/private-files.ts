import fs from 'node:fs';
import path from 'node:path';

/**
 * Every directory and file memtrace creates in DATA_DIR (and the few it creates beside it, such as
 * repair backups and exports) goes through these functions: directories 0700, files 0600, set
 * explicitly so the umask never decides (a umask can only take bits away, and an odd one such as
 * 0277 would take the owner's own). Kept to node:fs so the hook may use it cheaply.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` and each missing parent, 0700 each. Directories that already exist are left as they are. */
export function makePrivateDir(dir: string): void {
  const missing: string[] = [];
  for (let current = path.resolve(dir); !fs.existsSync(current); current = path.dirname(current)) {
    missing.push(current);
    if (path.dirname(current) === current) break;
  }
  for (const level of missing.reverse()) {
    try {
      fs.mkdirSync(level, { mode: PRIVATE_DIR_MODE });
    } catch (error) {
      // Another process made it first: fine, it is theirs (or ours) to mode.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    fs.chmodSync(level, PRIVATE_DIR_MODE);
  }
}

/**
 * Opens a file for writing (`a` append, `w` truncate, `wx` only if new), creating its directory
 * first; the file ends up 0600 whether it was just created or left 0644 by an older release.
 * Returns the descriptor; the caller closes it.
 */
export function openPrivateFile(file: string, flags: 'a' | 'w' | 'wx'): number {
  makePrivateDir(path.dirname(file));
  const fd = fs.openSync(file, flags, PRIVATE_FILE_MODE);
  try {
    tightenFd(fd);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  return fd;
}

/** Makes sure the file exists and is 0600 (SQLite then opens it, and gives its -wal and -shm files the same mode). */
export function touchPrivateFile(file: string): void {
  fs.closeSync(openPrivateFile(file, 'a'));
}

/** Writes the whole file (0600) in one go, without the atomic rename: for temp files and new files only this process knows. */
export function writePrivateFile(file: string, data: string | Uint8Array, flags: 'w' | 'wx' = 'w'): void {
  const fd = openPrivateFile(file, flags);
  try {
    fs.writeFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Replaces the file atomically: a 0600 temp file in the same directory (its name starts with a
 * dot and ends with .tmp, so directory listings can skip it), fsync, rename. A reader sees the
 * old content or the new, never half; a crash leaves at most a stray temp file.
 */
export function writePrivateFileAtomic(file: string, data: string | Uint8Array): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  const fd = openPrivateFile(temp, 'wx');
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

function tightenFd(fd: number): void {
  const stat = fs.fstatSync(fd);
  // A file someone else owns (a shared --db path) is not ours to change.
  if ((stat.mode & 0o777) !== PRIVATE_FILE_MODE && (process.getuid === undefined || stat.uid === process.getuid())) fs.fchmodSync(fd, PRIVATE_FILE_MODE);
}
