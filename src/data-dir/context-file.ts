import fs from 'node:fs';
import path from 'node:path';
import { writePrivateFileAtomic } from './private-files.js';

/**
 * The context a session starting in a directory would get, kept by the worker as a file so that
 * a session starting while no worker runs (the first one after a reboot) still gets it at once.
 * The file mirrors the directory's path under DATA_DIR/context, so the shell forwarder finds it
 * with no process of its own: `$DATA_DIR/context$PWD/session-start.json`.
 */
const CONTEXT_DIR = 'context';
const CONTEXT_FILE = 'session-start.json';

function contextFilePath(dataDir: string, cwd: string): string | null {
  if (!path.isAbsolute(cwd) || cwd.split('/').includes('..')) return null;
  return path.join(dataDir, CONTEXT_DIR, cwd, CONTEXT_FILE);
}

/** The hook output kept for a directory, or null. */
export function readContextFile(dataDir: string, cwd: string): string | null {
  const file = contextFilePath(dataDir, cwd);
  if (!file) return null;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Writes (atomically, 0600 in 0700 folders) or removes the context kept for a directory. */
export function writeContextFile(dataDir: string, cwd: string, output: string | null): void {
  const file = contextFilePath(dataDir, cwd);
  if (!file) return;
  if (output === null) {
    fs.rmSync(file, { force: true });
    return;
  }
  writePrivateFileAtomic(file, output);
}
