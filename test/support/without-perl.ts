import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A PATH holding only what the shell forwarder uses besides perl (sh, curl, cat): how the
 * forwarder runs on a machine without perl, where it streams the event with curl instead.
 */
export function pathWithoutPerl(): string {
  const dir = path.join(os.tmpdir(), `memtrace-no-perl-${process.getuid?.() ?? 0}`);
  fs.mkdirSync(dir, { recursive: true });
  for (const tool of ['sh', 'curl', 'cat']) {
    const link = path.join(dir, tool);
    try {
      fs.symlinkSync(whichOrThrow(tool), link);
    } catch (error) {
      // Another test process made it first.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return dir;
}

function whichOrThrow(tool: string): string {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    const candidate = path.join(dir, tool);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`${tool} is not on PATH`);
}
