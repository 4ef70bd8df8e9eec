/** Reads a whole stream as UTF-8, refusing more than maxBytes so a runaway pipe cannot exhaust memory. */
export async function readAll(stream: NodeJS.ReadableStream, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += buffer.length;
    if (total > maxBytes) throw new InputTooLargeError(maxBytes);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

class InputTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`input is larger than ${maxBytes} bytes`);
    this.name = 'InputTooLargeError';
  }
}
