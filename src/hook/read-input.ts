import fs from 'node:fs';

/** What a hook read from its input: all of it, or past the limit its head and tail. */
export type HookInput = { complete: true; bytes: Buffer } | { complete: false; head: Buffer; tail: Buffer; totalBytes: number };

const CHUNK = 1024 * 1024;

/**
 * Reads every byte of a hook's input, whatever it is: a pipe the host writes slowly, a socket,
 * a file, or one closed early. The process's own stdin is read with blocking reads (cheapest for
 * the usual small payload); a non-blocking one (EAGAIN) is finished as a stream, keeping what was
 * already read. Past `maxBytes` the rest is still read (a host blocked on a full pipe must be
 * let go) and only the head and tail are kept.
 */
export async function readHookInput(stream: NodeJS.ReadableStream, maxBytes: number, isProcessStdin = stream === process.stdin): Promise<HookInput> {
  const keeper = createKeeper(maxBytes);
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

function createKeeper(maxBytes: number) {
  const chunks: Buffer[] = [];
  let total = 0;
  let head: Buffer | null = null;
  const tail: Buffer[] = [];
  let tailBytes = 0;
  const edge = Math.min(maxBytes, CHUNK);
  return {
    add(chunk: Buffer) {
      total += chunk.length;
      if (head === null && total <= maxBytes) return void chunks.push(chunk);
      if (head === null) {
        head = Buffer.concat(chunks).subarray(0, edge);
        chunks.length = 0;
      }
      tail.push(chunk);
      tailBytes += chunk.length;
      while (tail.length > 1 && tailBytes - tail[0]!.length >= edge) tailBytes -= tail.shift()!.length;
    },
    done(): HookInput {
      if (head === null) return { complete: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) };
      const all = Buffer.concat(tail);
      return { complete: false, head, tail: all.subarray(Math.max(0, all.length - edge)), totalBytes: total };
    },
  };
}
