import type { Readable } from 'node:stream';

export type CappedBody = { text: string } | { head: string; tail: string; totalBytes: number };

/**
 * Reads a request body whole, or past `max` bytes only its first and last `edge` bytes (the rest
 * read and dropped), then calls `done` once. A client that went away mid-body leaves what it
 * sent: it will not parse, so the caller keeps it as unreadable.
 */
export function readCappedBody(stream: Readable, max: number, edge: number, done: (body: CappedBody) => void): void {
  const chunks: Buffer[] = [];
  let total = 0;
  let head: Buffer | null = null;
  const tail: Buffer[] = [];
  let tailBytes = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    stream.off('data', onData);
    if (head === null) return done({ text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8') });
    const tailBuffer = Buffer.concat(tail);
    done({ head: head.toString('utf8'), tail: tailBuffer.subarray(Math.max(0, tailBuffer.length - edge)).toString('utf8'), totalBytes: total });
  };
  const onData = (chunk: Buffer) => {
    total += chunk.length;
    if (head === null && total <= max) {
      chunks.push(chunk);
      return;
    }
    if (head === null) {
      head = Buffer.concat(chunks).subarray(0, edge);
      chunks.length = 0;
    }
    tail.push(chunk);
    tailBytes += chunk.length;
    while (tail.length > 1 && tailBytes - tail[0]!.length >= edge) tailBytes -= tail.shift()!.length;
  };
  stream.on('data', onData);
  stream.once('end', finish);
  // 'close' without 'end': the client went away; what came is all there is.
  stream.once('close', finish);
  stream.on('error', finish);
}
