import fs from 'node:fs';
import { lastAssistantText } from './assistant-text.js';

/** Tail windows tried in turn: most replies fit the first; a long one needs more. */
const WINDOWS = [256 * 1024, 2 * 1024 * 1024, 8 * 1024 * 1024];

/** The transcript's last assistant message, reading only as much of its tail as it takes. */
export function readLastAssistantText(transcriptPath: unknown): string | null {
  if (typeof transcriptPath !== 'string' || transcriptPath === '') return null;
  let fd: number;
  try {
    fd = fs.openSync(transcriptPath, 'r');
  } catch {
    return null;
  }
  try {
    const size = fs.fstatSync(fd).size;
    let best: string | null = null;
    for (const window of WINDOWS) {
      const length = Math.min(size, window);
      const buffer = Buffer.alloc(length);
      fs.readSync(fd, buffer, 0, length, size - length);
      const found = lastAssistantText(buffer.toString('utf8'));
      if (found) best = found.text;
      if (found?.complete || length === size) break;
    }
    return best;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
