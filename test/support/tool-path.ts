import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A PATH holding only `tools` (symlinks to this machine's): how a script runs where the others are missing. */
export function pathWithOnly(tools: readonly string[]): string {
  const dir = path.join(os.tmpdir(), `memtrace-path-${process.getuid?.() ?? 0}-${tools.join('-')}`);
  fs.mkdirSync(dir, { recursive: true });
  for (const tool of tools) {
    try {
      fs.symlinkSync(whichOrThrow(tool), path.join(dir, tool));
    } catch (error) {
      // Another test process made it first.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return dir;
}

/** What the shell forwarder uses besides perl (sh, curl, cat): the forwarder on a machine without perl. */
export function pathWithoutPerl(): string {
  return pathWithOnly(['sh', 'curl', 'cat']);
}

function whichOrThrow(tool: string): string {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    const candidate = path.join(dir, tool);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`${tool} is not on PATH`);
}
