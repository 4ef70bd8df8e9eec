import fs from 'node:fs';
import path from 'node:path';
import { makePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';

/** A data dir that cannot be used, with the one line that says why and what to do. */
export class DataDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirError';
  }
}

const TIGHTEN = ['', 'logs'];

/**
 * DATA_DIR holds a developer's tool output: 0700, and every file in it 0600, whatever the
 * umask or an older release left behind. Fails with one clear line when it is not usable.
 */
export function preparePrivateDataDir(dataDir: string): void {
  try {
    makePrivateDir(dataDir);
    fs.accessSync(dataDir, fs.constants.W_OK | fs.constants.R_OK | fs.constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new DataDirError(`data dir ${dataDir} is not writable (${code}); set MEMTRACE_DATA_DIR to a directory you own`);
  }
  tightenModes(dataDir);
}

function tightenModes(dataDir: string): void {
  chmodIfOwned(dataDir, PRIVATE_DIR_MODE);
  for (const sub of TIGHTEN) {
    const dir = path.join(dataDir, sub);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    if (sub !== '') chmodIfOwned(dir, PRIVATE_DIR_MODE);
    for (const entry of entries) if (entry.isFile()) chmodIfOwned(path.join(dir, entry.name), PRIVATE_FILE_MODE);
  }
}

function chmodIfOwned(file: string, mode: number): void {
  try {
    const stat = fs.statSync(file);
    if ((stat.mode & 0o777) !== mode && (process.getuid === undefined || stat.uid === process.getuid())) fs.chmodSync(file, mode);
  } catch {
    /* a file that vanished or is not ours is left alone */
  }
}
