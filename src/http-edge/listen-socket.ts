import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';

export interface ListeningSocket {
  path: string;
  close(): Promise<void>;
}

/**
 * Serves the app on a Unix socket inside `dir` (0600, in a folder that must already be private).
 * A socket file left there by a dead process is replaced: the caller holds the data dir's lock,
 * so no live worker owns it. An address too long for a Unix socket is bound relative to `dir`.
 */
export function listenUnixSocket(app: Hono, dir: string, name: string, { pathLimit }: { pathLimit: number }): Promise<ListeningSocket> {
  const full = path.join(dir, name);
  fs.rmSync(full, { force: true });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      fs.chmodSync(full, 0o600);
      resolve({
        path: full,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections?.();
          }),
      });
    });
    if (Buffer.byteLength(full) <= pathLimit) server.listen(full);
    else {
      // bind(2) resolves a relative name against the working directory, synchronously.
      const cwd = process.cwd();
      process.chdir(dir);
      try {
        server.listen(name);
      } finally {
        process.chdir(cwd);
      }
    }
  });
}
