import type { Socket } from 'node:net';
import { parseResponse } from './http-response.js';

export type SocketResponse = { ok: true; status: number; body: string } | { ok: false; failure: 'unreachable' | 'timeout'; detail: string };

/** How a caller opens a Unix-socket connection: node:net's own, or the one the host's runtime lends an in-process plugin. */
export type ConnectUnix = (options: { path: string }, onConnect: () => void) => Socket;

/**
 * One HTTP/1.1 POST to the worker over the data dir's Unix socket, `Connection: close`, read to
 * the end. node:http costs a hook more to load than this whole exchange, and this request is
 * the one shape our own server answers. `socketPath` may be relative to the working directory
 * (a long data dir path does not fit a socket address). 'unreachable' means nothing of the
 * event reached the worker; 'timeout' means it may have. Imports nothing at run time, so the
 * in-process plugins (dist/in-process) bundle it as they are.
 */
export function exchangeOverSocket(
  connect: ConnectUnix,
  socketPath: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
): Promise<SocketResponse> {
  return new Promise((resolve) => {
    const head = [
      `POST ${path} HTTP/1.1`,
      'host: localhost',
      'connection: close',
      'content-type: application/json',
      `content-length: ${body.length}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    const chunks: Buffer[] = [];
    let connected = false;
    let settled = false;
    const finish = (result: SocketResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const socket = connect({ path: socketPath }, () => {
      connected = true;
      socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
    });
    const timer = setTimeout(
      () =>
        finish(
          connected
            ? { ok: false, failure: 'timeout', detail: "no answer within the hook's time budget" }
            : { ok: false, failure: 'unreachable', detail: 'connect timed out' },
        ),
      Math.max(1, timeoutMs),
    );
    // The connection keeps the process alive while it lasts; the timer alone must not (a host's
    // process never waits on memtrace to exit).
    timer.unref?.();
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => {
      const parsed = parseResponse(Buffer.concat(chunks));
      finish(
        parsed
          ? { ok: true, ...parsed }
          : { ok: false, failure: connected ? 'timeout' : 'unreachable', detail: 'the worker closed the connection without a reply' },
      );
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish({ ok: false, failure: connected ? 'timeout' : 'unreachable', detail: error.code ?? error.message }),
    );
  });
}
