import { describe, expect, it } from 'vitest';
import { createCappedBody } from '../../src/server/capped-body.js';

describe('a capped request body', () => {
  it('is kept whole up to the cap, across chunks and characters split between them', () => {
    const bytes = Buffer.from('{"a":"é€😀"}');
    const body = createCappedBody(bytes.length, 4);
    for (let i = 0; i < bytes.length; i += 3) body.push(bytes.subarray(i, i + 3));
    expect(body.body()).toEqual({ text: '{"a":"é€😀"}' });
  });

  it('past the cap keeps only its first and last bytes and counts them all', () => {
    const body = createCappedBody(64, 8);
    body.push(Buffer.from('HEAD-'));
    for (let i = 0; i < 100; i += 1) body.push(Buffer.from('x'.repeat(10)));
    body.push(Buffer.from('-TAIL'));
    expect(body.body()).toEqual({ head: 'HEAD-xxx', tail: 'xxx-TAIL', totalBytes: 1010 });
  });

  it('is empty text when nothing came', () => {
    expect(createCappedBody(10, 4).body()).toEqual({ text: '' });
  });
});
