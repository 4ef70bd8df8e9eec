import fs from 'node:fs';
import path from 'node:path';

/**
 * Exports hold a developer's memory: their files are created 0600 and their folders 0700
 * whatever the umask, and an existing file is tightened before it is written again.
 */
export function openPrivateFile(file: string): fs.WriteStream {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(file, 'w', 0o600);
  fs.fchmodSync(fd, 0o600);
  return fs.createWriteStream('', { fd });
}

export function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}
