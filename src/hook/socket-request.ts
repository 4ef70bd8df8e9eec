import net from 'node:net';
import { exchangeOverSocket, type SocketResponse } from './socket-exchange.js';

export type { SocketResponse };

/** One POST to the worker over the data dir's Unix socket (socket-exchange.ts), answered or given up by `deadlineAtMs`. */
export function postOverSocket(socketPath: string, path: string, headers: Record<string, string>, body: Buffer, deadlineAtMs: number): Promise<SocketResponse> {
  return exchangeOverSocket((options, onConnect) => net.connect(options, onConnect), socketPath, path, headers, body, deadlineAtMs - Date.now());
}
