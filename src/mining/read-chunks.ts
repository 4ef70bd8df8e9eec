import { MiningAttemptError } from './attempt-error.js';
import type { FileReader } from './file-reader.js';

/**
 * Reads a transcript from `from` to its end in chunks, handing each to `onChunk` (the buffer is
 * reused: copy what must outlive the call). A failed read is an attempt error naming the byte, so
 * the file is retried after backoff. Stops early, returning 'aborted', when the signal fires.
 */
export async function readChunks(
  reader: FileReader,
  from: number,
  chunkBytes: number,
  signal: AbortSignal | undefined,
  onChunk: (bytes: Buffer) => void,
): Promise<'done' | 'aborted'> {
  const buffer = Buffer.allocUnsafe(chunkBytes);
  for (let position = from; ; ) {
    if (signal?.aborted) return 'aborted';
    let n: number;
    try {
      n = await reader.read(buffer, buffer.length, position);
    } catch (error) {
      throw new MiningAttemptError('read', `read failed at byte ${position}: ${(error as Error).message}`);
    }
    if (n === 0) return 'done';
    onChunk(buffer.subarray(0, n));
    position += n;
  }
}
