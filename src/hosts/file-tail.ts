import fs from 'node:fs';

/** Tail windows tried in turn: what a hook looks for is nearly always in the last few lines. */
const TAIL_WINDOWS = [64 * 1024, 1024 * 1024, 8 * 1024 * 1024] as const;

/**
 * Reads a growing file's tail, a larger one each time `find` finds nothing, until it has read
 * the whole file or the largest window. The text may start mid-line (`find` skips what does not
 * parse). Null when the file cannot be read or nothing was found.
 */
export function findInFileTail<T>(file: string, find: (text: string) => T | null, windows: readonly number[] = TAIL_WINDOWS): T | null {
  return scanFileTail(file, (tail) => find(tail.toString('utf8')), windows);
}

/**
 * The same, handing `find` only the tail's lines that contain `needle`, each decoded whole (the
 * first may be cut where the window starts): a hook looking for one call's lines decodes those,
 * not the tail.
 */
export function findLinesInFileTail<T>(file: string, needle: string, find: (lines: string[]) => T | null, windows: readonly number[] = TAIL_WINDOWS): T | null {
  const bytes = Buffer.from(needle, 'utf8');
  return scanFileTail(file, (tail) => find(linesContaining(tail, bytes)), windows);
}

/** The lines of `bytes` that contain `needle`, decoded; each line once however often it holds it. */
export function linesContaining(bytes: Buffer, needle: Buffer): string[] {
  const lines: string[] = [];
  for (let at = bytes.indexOf(needle); at >= 0; ) {
    const start = bytes.lastIndexOf(0x0a, at) + 1;
    const newline = bytes.indexOf(0x0a, at + needle.length);
    const end = newline < 0 ? bytes.length : newline;
    lines.push(bytes.toString('utf8', start, end));
    at = newline < 0 ? -1 : bytes.indexOf(needle, end);
  }
  return lines;
}

function scanFileTail<T>(file: string, find: (tail: Buffer) => T | null, windows: readonly number[]): T | null {
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
      const found = find(buffer);
      if (found !== null || length === size) return found;
    }
    return null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
