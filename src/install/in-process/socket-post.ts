import { exchangeOverSocket } from '../../hook/socket-exchange.js';
import type { Builtins } from './builtins.js';

export type PostResult = { ok: true; status: number; body: string } | { ok: false; failure: 'unreachable' | 'timeout' };

/**
 * One POST of a host event to the worker's hook door on the data dir's socket, as the hooks'
 * forwarders send it (POST /hook/<host>/<event>), through the host runtime's own node:net.
 * `startedMs` is when the host's cost of this event began (the worker counts it as the hook's time).
 */
export function postHookEvent(
  net: Builtins['net'],
  socketPath: string,
  route: string,
  body: string,
  options: { timeoutMs: number; startedMs: number },
): Promise<PostResult> {
  const headers = { 'x-memtrace-hook-via': 'plugin', 'x-memtrace-hook-started': String(Math.round(options.startedMs)) };
  return exchangeOverSocket((o, onConnect) => net.connect(o, onConnect), socketPath, route, headers, Buffer.from(body, 'utf8'), options.timeoutMs);
}
