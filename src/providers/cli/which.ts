import fs from 'node:fs';
import path from 'node:path';

/** The first executable `name` on PATH (as a shell would find it), or null. */
export function findOnPath(name: string, pathValue: string | undefined): string | null {
  if (name.includes('/')) return isExecutable(name) ? name : null;
  for (const dir of (pathValue ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
