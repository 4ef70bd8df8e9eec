import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { listenUnixSocket, type ListeningSocket, type SocketHandler } from '../../src/http-edge/listen-socket.js';
import type { RequestHead } from '../../src/http-edge/http1-request.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

interface Seen {
  head: RequestHead;
  body: string;
  complete: boolean | null;
}

/** Answers with what it read: the handler every test here serves. */
function recorder(seen: Seen[]): SocketHandler {
  return (head) => {
    const entry: Seen = { head, body: '', complete: null };
    seen.push(entry);
    return {
      push: (chunk) => {
        entry.body += chunk.toString();
      },
      end: (complete) => {
        entry.complete = complete;
        return { status: 202, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ got: entry.body.length }) };
      },
    };
  };
}

/** Writes `parts` in turn (yielding between them) and reads until the server closes. */
function exchange(socketPath: string, parts: Array<string | Buffer>, options: { halfClose?: boolean; closeEarly?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ path: socketPath }, async () => {
      for (const part of parts) {
        socket.write(part);
        await new Promise((r) => setImmediate(r));
      }
      if (options.closeEarly) socket.destroy();
      else if (options.halfClose) socket.end();
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (error) => (options.closeEarly ? resolve('') : reject(error)));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
}

describe('the data dir socket’s HTTP reader', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let served: ListeningSocket | null = null;
  afterEach(async () => {
    await served?.close();
    served = null;
    temp.cleanup();
  });

  async function serve(handler: SocketHandler, upgrade?: (request: RequestHead, stream: Duplex, head: Buffer) => void): Promise<string> {
    temp = makeTempDir();
    fs.chmodSync(temp.dir, 0o700);
    served = await listenUnixSocket(handler, temp.dir, 'test.sock', { pathLimit: 100, ...(upgrade ? { upgrade } : {}) });
    expect(fs.statSync(served.path).mode & 0o777).toBe(0o600);
    return served.path;
  }

  it('reads a chunked body sent in pieces and answers once, closing the connection', async () => {
    const seen: Seen[] = [];
    const at = await serve(recorder(seen));
    const reply = await exchange(at, [
      'POST /hook/claude-code/stop HTTP/1.1\r\nHost: localhost\r\nTransfer-Enc',
      'oding: chunked\r\nx-memtrace-hook-via: settings\r\n\r\n5\r\nhel',
      'lo\r\n6\r\n world\r\n0\r\n',
      '\r\n',
    ]);
    expect(reply).toBe('HTTP/1.1 202 Accepted\r\ncontent-type: application/json\r\ncontent-length: 10\r\nconnection: close\r\n\r\n{"got":11}');
    expect(seen).toEqual([
      {
        head: { method: 'POST', url: '/hook/claude-code/stop', headers: expect.objectContaining({ 'x-memtrace-hook-via': 'settings' }) },
        body: 'hello world',
        complete: true,
      },
    ]);
  });

  it('reads a body of a given length, and answers a client that ended its side after sending', async () => {
    const seen: Seen[] = [];
    const at = await serve(recorder(seen));
    const reply = await exchange(at, ['POST /x HTTP/1.1\r\nContent-Length: 4\r\n\r\nab', 'cd'], { halfClose: true });
    expect(reply).toMatch(/^HTTP\/1\.1 202 Accepted\r\n/);
    expect(seen[0]).toMatchObject({ body: 'abcd', complete: true });
  });

  it('lets go of a connection once its reply is written, without waiting for the client to end its side', async () => {
    const seen: Seen[] = [];
    const at = await serve(recorder(seen));
    const { reply, writeAfter } = await new Promise<{ reply: string; writeAfter: string }>((resolve) => {
      const chunks: Buffer[] = [];
      const socket = net.connect({ path: at, allowHalfOpen: true }, () => socket.write('POST /x HTTP/1.1\r\nContent-Length: 2\r\n\r\nok'));
      socket.on('data', (c: Buffer) => chunks.push(c));
      // The client's side is still open: a write now finds nobody reading (the server closed, not just ended, its side).
      socket.once('end', () => socket.write('more', (error) => resolve({ reply: Buffer.concat(chunks).toString(), writeAfter: error ? 'refused' : 'taken' })));
      socket.on('error', () => undefined);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 202 Accepted\r\n[\s\S]*\{"got":2\}$/);
    expect(writeAfter).toBe('refused');
    expect(seen[0]).toMatchObject({ body: 'ok', complete: true });
  });

  it('writes a reply larger than the socket takes at once whole before it lets go', async () => {
    const big = 'x'.repeat(4 * 1024 * 1024);
    const at = await serve(() => ({ push: () => undefined, end: () => ({ status: 200, body: big }) }));
    const reply = await exchange(at, ['POST /x HTTP/1.1\r\nContent-Length: 0\r\n\r\n']);
    expect(reply.endsWith(`content-length: ${big.length}\r\nconnection: close\r\n\r\n${big}`)).toBe(true);
  });

  it('answers a client that sent bytes after its request without cutting the reply off', async () => {
    const seen: Seen[] = [];
    const at = await serve(recorder(seen));
    // exchange() fails on a reset: closing with those bytes unread would reset the client.
    const reply = await exchange(at, ['POST /x HTTP/1.1\r\nContent-Length: 2\r\n\r\nokGET / HTTP/1.1\r\n\r\n']);
    expect(reply).toMatch(/^HTTP\/1\.1 202 Accepted\r\n[\s\S]*\{"got":2\}$/);
    const chunked = await exchange(at, ['POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\nextra']);
    expect(chunked).toMatch(/\{"got":2\}$/);
  });

  it('says 100 Continue to a client that waits for it', async () => {
    const at = await serve(recorder([]));
    const reply = await exchange(at, ['POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n', 'ok']);
    expect(reply).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 202 Accepted\r\n/);
  });

  it.each([
    ['garbage', 'hello\r\n\r\n', 400],
    ['an unknown transfer coding', 'POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n', 501],
    ['a head larger than 16 KiB', `POST /x HTTP/1.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])('refuses %s with %s and calls no handler', async (_, request, status) => {
    const seen: Seen[] = [];
    const at = await serve(recorder(seen));
    const reply = await exchange(at, [request]);
    expect(reply.startsWith(`HTTP/1.1 ${status} `)).toBe(true);
    expect(seen).toEqual([]);
  });

  it('hands what came to the handler when the client goes away mid-body, or breaks the chunk framing', async () => {
    const seen: Seen[] = [];
    const at = await serve(recorder(seen));
    await exchange(at, ['POST /x HTTP/1.1\r\nContent-Length: 100\r\n\r\n{"session_id":'], { closeEarly: true });
    await waitFor(() => seen[0]?.complete !== null && seen[0]?.complete !== undefined);
    expect(seen[0]).toMatchObject({ body: '{"session_id":', complete: false });
    const reply = await exchange(at, ['POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n']);
    expect(reply).toMatch(/^HTTP\/1\.1 202 /);
    expect(seen[1]).toMatchObject({ body: 'ab', complete: false });
  });

  it('hands a connection that asks to leave HTTP to the upgrade handler with the bytes after the head', async () => {
    const seen: Seen[] = [];
    const upgrades: Array<{ url: string; head: string }> = [];
    const at = await serve(recorder(seen), (request, stream, head) => {
      upgrades.push({ url: request.url, head: head.toString() });
      stream.end('HTTP/1.1 101 Switching Protocols\r\n\r\nbye');
    });
    const reply = await exchange(at, ['GET /mcp HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: memtrace-mcp\r\n\r\n{"jsonrpc"']);
    expect(reply).toBe('HTTP/1.1 101 Switching Protocols\r\n\r\nbye');
    expect(upgrades).toEqual([{ url: '/mcp', head: '{"jsonrpc"' }]);
    expect(seen).toEqual([]);
  });

  it('closes a connection that asks to leave HTTP when nothing takes upgrades', async () => {
    const at = await serve(recorder([]));
    expect(await exchange(at, ['GET /mcp HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: memtrace-mcp\r\n\r\n'])).toBe('');
  });

  it('binds an address too long for a socket from inside its folder, and ends open connections on close', async () => {
    temp = makeTempDir();
    const deep = path.join(temp.dir, 'd'.repeat(120));
    fs.mkdirSync(deep, { mode: 0o700 });
    const seen: Seen[] = [];
    served = await listenUnixSocket(recorder(seen), deep, 'test.sock', { pathLimit: 100 });
    const cwd = process.cwd();
    process.chdir(deep);
    const hanging = new Promise<string>((resolve) => {
      const socket = net.connect({ path: 'test.sock' }, () => socket.write('POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\n'));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve('closed'));
    });
    process.chdir(cwd);
    await waitFor(() => seen.length === 1);
    await served.close();
    served = null;
    expect(await hanging).toBe('closed');
  });
});
