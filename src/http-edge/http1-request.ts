/**
 * The HTTP/1.1 requests the data dir's socket takes (its clients are memtrace's own forwarders,
 * the Node hook, curl and the MCP bridges): the head, and a body framed by Content-Length or
 * chunked transfer coding. Pure: bytes in, a parsed head or a refusal out.
 */
export interface RequestHead {
  method: string;
  url: string;
  /** Lower-cased names; a repeated header's values joined with `, `. */
  headers: Readonly<Record<string, string>>;
}

export type HeadParse = { ok: true; head: RequestHead; framing: BodyFraming } | { ok: false; status: 400 | 501; reason: string };

/** How the body after the head ends. */
export type BodyFraming = { kind: 'none' } | { kind: 'length'; bytes: number } | { kind: 'chunked' };

const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Where the head ends: the index just past its blank line (CRLF or bare LF line ends), or -1. */
export function headEnd(buffer: Buffer, from = 0): number {
  for (let i = buffer.indexOf(10, from); i !== -1; i = buffer.indexOf(10, i + 1)) {
    if (buffer[i + 1] === 10) return i + 2;
    if (buffer[i + 1] === 13 && buffer[i + 2] === 10) return i + 3;
  }
  return -1;
}

export function parseRequestHead(text: string): HeadParse {
  const lines = text.split(/\r?\n/);
  const line = REQUEST_LINE.exec(lines[0] ?? '');
  if (!line) return { ok: false, status: 400, reason: 'not an HTTP/1.1 request line' };
  const headers: Record<string, string> = {};
  for (const raw of lines.slice(1)) {
    if (raw === '') continue;
    const colon = raw.indexOf(':');
    const name = colon > 0 ? raw.slice(0, colon) : '';
    if (!HEADER_NAME.test(name)) return { ok: false, status: 400, reason: 'a malformed header line' };
    const key = name.toLowerCase();
    const value = raw.slice(colon + 1).trim();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  const head = { method: line[1]!, url: line[2]!, headers };
  const coding = headers['transfer-encoding'];
  const length = headers['content-length'];
  if (coding !== undefined) {
    if (length !== undefined) return { ok: false, status: 400, reason: 'both Content-Length and Transfer-Encoding' };
    if (coding.toLowerCase() !== 'chunked') return { ok: false, status: 501, reason: `transfer coding '${coding}' is not supported` };
    return { ok: true, head, framing: { kind: 'chunked' } };
  }
  if (length !== undefined) {
    if (!/^\d{1,15}$/.test(length)) return { ok: false, status: 400, reason: 'a malformed Content-Length' };
    return { ok: true, head, framing: { kind: 'length', bytes: Number(length) } };
  }
  return { ok: true, head, framing: { kind: 'none' } };
}

/** What a chunked body decoder made of the bytes so far. */
export interface ChunkedStep {
  data: Buffer[];
  /** The last chunk and its trailers have arrived. */
  done: boolean;
  error: string | null;
  /** Bytes of this push that came after the body's end (not part of it). */
  extra: number;
}

const MAX_CHUNK_LINE = 1024;

/**
 * Decodes a chunked body as it arrives, in pieces of any size: size line (hex, extensions
 * ignored), data, CRLF; the last chunk (size 0) ends it after its trailer lines.
 */
export function createChunkedDecoder(): { push(bytes: Buffer): ChunkedStep } {
  let state: 'size' | 'data' | 'data-end' | 'trailer' | 'done' | 'failed' = 'size';
  let line = '';
  let left = 0;
  return {
    push(bytes) {
      const data: Buffer[] = [];
      let at = 0;
      const fail = (error: string): ChunkedStep => {
        state = 'failed';
        return { data, done: false, error, extra: 0 };
      };
      while (at < bytes.length && state !== 'done' && state !== 'failed') {
        if (state === 'data') {
          const take = Math.min(left, bytes.length - at);
          data.push(bytes.subarray(at, at + take));
          at += take;
          left -= take;
          if (left === 0) state = 'data-end';
          continue;
        }
        // Line states: read up to the next LF.
        const lf = bytes.indexOf(10, at);
        line += bytes.toString('latin1', at, lf === -1 ? bytes.length : lf);
        if (line.length > MAX_CHUNK_LINE) return fail('a chunk line is too long');
        if (lf === -1) break;
        at = lf + 1;
        const text = line.endsWith('\r') ? line.slice(0, -1) : line;
        line = '';
        if (state === 'data-end') {
          if (text !== '') return fail('a chunk is longer than its size says');
          state = 'size';
        } else if (state === 'size') {
          const size = /^([0-9A-Fa-f]{1,12})(?:[ \t]*;.*)?$/.exec(text);
          if (!size) return fail('a malformed chunk size');
          left = Number.parseInt(size[1]!, 16);
          state = left === 0 ? 'trailer' : 'data';
        } else if (text === '') state = 'done';
      }
      if (state === 'failed') return { data, done: false, error: 'the body was malformed earlier', extra: 0 };
      return { data, done: state === 'done', error: null, extra: state === 'done' ? bytes.length - at : 0 };
    },
  };
}
