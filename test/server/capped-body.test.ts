import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readCappedBody, type CappedBody } from '../../src/server/capped-body.js';

const read = (write: (stream: PassThrough) => void, max: number, edge: number) =>
  new Promise<CappedBody>((resolve) => {
    const stream = new PassThrough();
    readCappedBody(stream, max, edge, resolve);
    write(stream);
  });

describe('a capped request body', () => {
  it('is read whole up to the cap, across chunks and split characters', async () => {
    const bytes = Buffer.from('{"a":"é€😀"}');
    const body = await read(
      (s) => {
        for (let i = 0; i < bytes.length; i += 3) s.write(bytes.subarray(i, i + 3));
        s.end();
      },
      bytes.length,
      4,
    );
    expect(body).toEqual({ text: '{"a":"é€😀"}' });
  });

  it('past the cap keeps only its first and last bytes and counts them all', async () => {
    const body = await read(
      (s) => {
        s.write(Buffer.from('HEAD-'));
        for (let i = 0; i < 100; i += 1) s.write(Buffer.from('x'.repeat(10)));
        s.end(Buffer.from('-TAIL'));
      },
      64,
      8,
    );
    expect(body).toEqual({ head: 'HEAD-xxx', tail: 'xxx-TAIL', totalBytes: 1010 });
  });

  it('answers once with what came when the client goes away mid-body', async () => {
    const seen: CappedBody[] = [];
    const stream = new PassThrough();
    readCappedBody(stream, 1024, 16, (b) => seen.push(b));
    stream.write(Buffer.from('{"session_id":'));
    stream.destroy(new Error('aborted'));
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([{ text: '{"session_id":' }]);
  });
});
