import { parseResponse } from '../../hook/http-response.js';
import type { Builtins } from './builtins.js';

export type PostResult = { ok: true; status: number; body: string } | { ok: false; failure: 'unreachable' | 'timeout' };

/**
 * One POST of a host event to the worker's hook door on the data dir's socket, `Connection:
 * close`, as the hooks' forwarders send it (POST /hook/<host>/<event>). `startedMs` is when the
 * host's cost of this event began (the worker counts it as the hook's time). 'unreachable':
 * nothing reached the worker (no socket, nobody listening); 'timeout': it may have.
 */
export function postHookEvent(
  net: Builtins['net'],
  socketPath: string,
  route: string,
  body: string,
  options: { timeoutMs: number; startedMs: number },
): Promise<PostResult> {
  const { timeoutMs, startedMs } = options;
  return new Promise((resolve) => {
    const payload = Buffer.from(body, 'utf8');
    const head =
      `POST ${route} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-type: application/json\r\n` +
      `content-length: ${payload.length}\r\nx-memtrace-hook-via: plugin\r\nx-memtrace-hook-started: ${Math.round(startedMs)}\r\n\r\n`;
    const chunks: Buffer[] = [];
    let connected = false;
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const socket = net.connect({ path: socketPath }, () => {
      connected = true;
      socket.write(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
    });
    const timer = setTimeout(() => finish({ ok: false, failure: connected ? 'timeout' : 'unreachable' }), timeoutMs);
    // The host's process must never wait on memtrace to exit.
    (timer as { unref?: () => void }).unref?.();
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      const parsed = parseResponse(Buffer.concat(chunks));
      finish(parsed ? { ok: true, ...parsed } : { ok: false, failure: connected ? 'timeout' : 'unreachable' });
    });
    socket.on('error', () => finish({ ok: false, failure: connected ? 'timeout' : 'unreachable' }));
  });
}
