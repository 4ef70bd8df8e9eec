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

/**
 * listenLoopback on `port`, or, when that port is taken and `anyWhenTaken` (the port is only the
 * default: another user's worker or another program holds it), on a free one. Hooks and MCP never
 * use this port (they use the data dir's socket); the port that was bound is published for the
 * commands that call the HTTP API. `wanted` is set when the fallback was taken.
 */
export async function listenLoopbackOrAny(app: Hono, port: number, anyWhenTaken: boolean): Promise<ListeningServer & { wanted: number | null }> {
  try {
    return { ...(await listenLoopback(app, port)), wanted: null };
  } catch (error) {
    if (!anyWhenTaken || port === 0 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return { ...(await listenLoopback(app, 0)), wanted: port };
  }
}
