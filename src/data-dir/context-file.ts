import fs from 'node:fs';
import path from 'node:path';
import { writePrivateFileAtomic } from './private-files.js';

/**
 * The context a session starting in a directory would get, kept by the worker as a file so that
 * a session starting while no worker runs (the first one after a reboot) still gets it at once.
 * The file mirrors the directory's path under DATA_DIR/context, so the shell forwarder finds it
 * with no process of its own: `$DATA_DIR/context$PWD/session-start.json`. A host that reads
 * another JSON (Copilot CLI) has its own variant beside it: `session-start.<variant>.json`.
 */
const CONTEXT_DIR = 'context';

function contextFilePath(dataDir: string, cwd: string, variant: string | null): string | null {
  if (!path.isAbsolute(cwd) || cwd.split('/').includes('..')) return null;
  if (variant !== null && !/^[a-z-]+$/.test(variant)) return null;
  return path.join(dataDir, CONTEXT_DIR, cwd, variant === null ? 'session-start.json' : `session-start.${variant}.json`);
}

/** The hook output kept for a directory, or null. */
export function readContextFile(dataDir: string, cwd: string, variant: string | null = null): string | null {
  const file = contextFilePath(dataDir, cwd, variant);
  if (!file) return null;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Writes (atomically, 0600 in 0700 folders) or removes the context kept for a directory. A file
 * that already holds the same bytes, privately, is left as it is: every session start asks for
 * its directory's context, which is mostly what the file already holds, and a rewrite is an fsync
 * and a rename on the worker's event loop just as the agent's next hook comes.
 */
export function writeContextFile(dataDir: string, cwd: string, output: string | null, variant: string | null = null): void {
  const file = contextFilePath(dataDir, cwd, variant);
  if (!file) return;
  if (output === null) {
    fs.rmSync(file, { force: true });
    return;
  }
  if (alreadyKept(file, output)) return;
  writePrivateFileAtomic(file, output);
}

function alreadyKept(file: string, output: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || (stat.mode & 0o077) !== 0 || stat.uid !== process.getuid?.() || stat.size !== Buffer.byteLength(output)) return false;
    return fs.readFileSync(file, 'utf8') === output;
  } catch {
    return false;
  }
}
