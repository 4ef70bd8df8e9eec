import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';

export interface ListeningServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Binds to 127.0.0.1 only: the worker holds a developer's tool output. */
export function listenLoopback(app: Hono, port: number): Promise<ListeningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }) as Server;
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const bound = (server.address() as AddressInfo).port;
      resolve({
        port: bound,
        url: `http://127.0.0.1:${bound}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections?.();
          }),
      });
    });
  });
}
