/** What was read of a hook's payload: all of it, or past the limit its first and last bytes. */
export type KeptPayload = { complete: true; bytes: Buffer } | { complete: false; head: Buffer; tail: Buffer; totalBytes: number };

/**
 * Keeps a hook payload as it arrives in chunks: whole up to `maxBytes`, past it only the first
 * and last `edgeBytes` (the rest dropped as it comes) with the count of every byte, so a host
 * writing megabytes is read to the end without holding them. The Node hook reading its stdin and
 * the worker reading a request on its socket keep payloads alike.
 */
export function createPayloadKeeper(maxBytes: number, edgeBytes: number): { add(chunk: Buffer): void; done(): KeptPayload } {
  const chunks: Buffer[] = [];
  let total = 0;
  let head: Buffer | null = null;
  const tail: Buffer[] = [];
  let tailBytes = 0;
  return {
    add(chunk) {
      total += chunk.length;
      if (head === null && total <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      if (head === null) {
        head = Buffer.concat(chunks).subarray(0, edgeBytes);
        chunks.length = 0;
      }
      tail.push(chunk);
      tailBytes += chunk.length;
      while (tail.length > 1 && tailBytes - tail[0]!.length >= edgeBytes) tailBytes -= tail.shift()!.length;
    },
    done() {
      if (head === null) return { complete: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) };
      const all = Buffer.concat(tail);
      return { complete: false, head, tail: all.subarray(Math.max(0, all.length - edgeBytes)), totalBytes: total };
    },
  };
}
