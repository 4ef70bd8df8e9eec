import fs from 'node:fs';
import { createPayloadKeeper, type KeptPayload } from '../hosts/payload-keeper.js';

/** What a hook read from its input: all of it, or past the limit its head and tail. */
export type HookInput = KeptPayload;

const CHUNK = 1024 * 1024;

/**
 * Reads every byte of a hook's input, whatever it is: a pipe the host writes slowly, a socket,
 * a file, or one closed early. The process's own stdin is read with blocking reads (cheapest for
 * the usual small payload); a non-blocking one (EAGAIN) is finished as a stream, keeping what was
 * already read. Past `maxBytes` the rest is still read (a host blocked on a full pipe must be
 * let go) and only the head and tail are kept.
 */
export async function readHookInput(stream: NodeJS.ReadableStream, maxBytes: number, isProcessStdin = stream === process.stdin): Promise<HookInput> {
  const keeper = createPayloadKeeper(maxBytes, Math.min(maxBytes, CHUNK));
  if (isProcessStdin) {
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      let read: number;
      try {
        read = fs.readSync(0, buffer, 0, CHUNK, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') break; // non-blocking: the stream takes over from here
        if (code === 'EOF' || code === 'EINVAL' || code === 'EBADF') return keeper.done(); // closed or no stdin at all
        throw error;
      }
      if (read === 0) return keeper.done();
      keeper.add(Buffer.from(buffer.subarray(0, read)));
    }
  }
  for await (const chunk of stream) keeper.add(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return keeper.done();
}
