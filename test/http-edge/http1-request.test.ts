import { describe, expect, it } from 'vitest';
import { createChunkedDecoder, headEnd, parseRequestHead } from '../../src/http-edge/http1-request.js';

describe('a request head on the data dir socket', () => {
  it('ends at the first blank line, with CRLF or bare LF line ends', () => {
    expect(headEnd(Buffer.from('POST / HTTP/1.1\r\nA: b\r\n\r\nbody'))).toBe(25);
    expect(headEnd(Buffer.from('POST / HTTP/1.1\nA: b\n\nbody'))).toBe(22);
    expect(headEnd(Buffer.from('POST / HTTP/1.1\r\nA: b\r\n'))).toBe(-1);
  });

  it('reads the method, target and headers, names lower-cased and repeats joined', () => {
    const parsed = parseRequestHead('POST /hook/claude-code/stop HTTP/1.1\r\nHost: localhost\r\nX-Memtrace-Hook-Via:  settings \r\nVia: a\r\nvia: b\r\n\r\n');
    expect(parsed).toEqual({
      ok: true,
      head: { method: 'POST', url: '/hook/claude-code/stop', headers: { host: 'localhost', 'x-memtrace-hook-via': 'settings', via: 'a, b' } },
      framing: { kind: 'none' },
    });
  });

  it('frames the body by Content-Length or chunked coding', () => {
    expect(parseRequestHead('POST / HTTP/1.1\r\nContent-Length: 12\r\n\r\n')).toMatchObject({ ok: true, framing: { kind: 'length', bytes: 12 } });
    expect(parseRequestHead('POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n')).toMatchObject({ ok: true, framing: { kind: 'chunked' } });
  });

  it.each([
    ['garbage', 'hello there\r\n\r\n', 400],
    ['HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\n', 400],
    ['a header without a name', 'POST / HTTP/1.1\r\n: x\r\n\r\n', 400],
    ['a header line without a colon', 'POST / HTTP/1.1\r\nnonsense\r\n\r\n', 400],
    ['a negative length', 'POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n', 400],
    ['two framings', 'POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n', 400],
    ['an unknown coding', 'POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n', 501],
  ])('refuses %s with %s', (_, text, status) => {
    expect(parseRequestHead(text)).toMatchObject({ ok: false, status });
  });
});

describe('a chunked body', () => {
  const decodeIn = (text: string, piece: number) => {
    const decoder = createChunkedDecoder();
    const bytes = Buffer.from(text);
    const data: Buffer[] = [];
    let last = { done: false, error: null as string | null };
    for (let i = 0; i < bytes.length; i += piece) {
      const step = decoder.push(bytes.subarray(i, i + piece));
      data.push(...step.data);
      last = step;
    }
    return { text: Buffer.concat(data).toString(), done: last.done, error: last.error };
  };

  it.each([1, 2, 3, 7, 1000])('is decoded whatever the size of the pieces it comes in (%s bytes)', (piece) => {
    const body = '5\r\nhello\r\n1;ext=1\r\n \r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n';
    expect(decodeIn(body, piece)).toEqual({ text: 'hello 0123456789', done: true, error: null });
  });

  it('is not done until its last chunk and blank line', () => {
    expect(decodeIn('3\r\nabc\r\n', 4)).toEqual({ text: 'abc', done: false, error: null });
    expect(decodeIn('3\r\nabc\r\n0\r\n', 4)).toEqual({ text: 'abc', done: false, error: null });
  });

  it('says how many bytes came after its end, which are not part of it', () => {
    const decoder = createChunkedDecoder();
    expect(decoder.push(Buffer.from('2\r\nok\r\n0\r'))).toMatchObject({ done: false, extra: 0 });
    expect(decoder.push(Buffer.from('\n\r\nGET /'))).toMatchObject({ done: true, extra: 5 });
    expect(createChunkedDecoder().push(Buffer.from('0\r\n\r\n'))).toEqual({ data: [], done: true, error: null, extra: 0 });
  });

  it.each([
    ['a size that is not hex', 'zz\r\nabc\r\n0\r\n\r\n'],
    ['data longer than its size', '2\r\nabc\r\n0\r\n\r\n'],
    ['an endless size line', `${'1'.repeat(2000)}\r\n`],
  ])('fails on %s, keeping what came before', (_, body) => {
    const decoded = decodeIn(body, 1000);
    expect(decoded.done).toBe(false);
    expect(decoded.error).not.toBeNull();
  });
});
