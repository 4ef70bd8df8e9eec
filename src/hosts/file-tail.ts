import fs from 'node:fs';

/** Tail windows tried in turn: what a hook looks for is nearly always in the last few lines. */
const TAIL_WINDOWS = [64 * 1024, 1024 * 1024, 8 * 1024 * 1024] as const;

/**
 * Reads a growing file's tail, a larger one each time `find` finds nothing, until it has read
 * the whole file or the largest window. The text may start mid-line (`find` skips what does not
 * parse). Null when the file cannot be read or nothing was found.
 */
export function findInFileTail<T>(file: string, find: (text: string) => T | null, windows: readonly number[] = TAIL_WINDOWS): T | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const size = fs.fstatSync(fd).size;
    for (const window of windows) {
      const length = Math.min(size, window);
      const buffer = Buffer.alloc(length);
      fs.readSync(fd, buffer, 0, length, size - length);
      const found = find(buffer.toString('utf8'));
      if (found !== null || length === size) return found;
    }
    return null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
