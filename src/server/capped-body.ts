export type CappedBody = { text: string } | { head: string; tail: string; totalBytes: number };

/**
 * Collects a request body whole, or past `max` bytes only its first and last `edge` bytes (the
 * rest dropped as it comes) with the count of every byte. Pure: chunks in, the body out.
 */
export function createCappedBody(max: number, edge: number): { push(chunk: Buffer): void; body(): CappedBody } {
  const chunks: Buffer[] = [];
  let total = 0;
  let head: Buffer | null = null;
  const tail: Buffer[] = [];
  let tailBytes = 0;
  return {
    push(chunk) {
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
    },
    body() {
      if (head === null) return { text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8') };
      const tailBuffer = Buffer.concat(tail);
      return { head: head.toString('utf8'), tail: tailBuffer.subarray(Math.max(0, tailBuffer.length - edge)).toString('utf8'), totalBytes: total };
    },
  };
}
