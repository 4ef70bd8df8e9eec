import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';

/** How long a request already being served may take to finish when the socket closes. */
const REQUEST_GRACE_MS = 5_000;
/**
 * How long a closing socket, its name already gone, keeps accepting: a client that connected just
 * before (queued, its request already written) is served, not reset — a hook forwarder whose
 * request was written believes the worker has its event.
 */
const ACCEPT_QUEUED_MS = 200;

export interface ListeningSocket {
  path: string;
  close(): Promise<void>;
}

/**
 * Takes a connection that asked to leave HTTP (`Connection: Upgrade`): the handler answers it
 * and owns the stream from then on. `head` holds whatever bytes came after the request's headers.
 */
export type UpgradeHandler = (request: IncomingMessage, stream: Duplex, head: Buffer) => void;

/**
 * Serves the app on a Unix socket inside `dir` (0600, in a folder that must already be private).
 * A socket file left there by a dead process is replaced: the caller holds the data dir's lock,
 * so no live worker owns it. An address too long for a Unix socket is bound relative to `dir`.
 * With `upgrade`, connections that ask to leave HTTP go to it; without, they are refused (closed).
 * Closing first removes the socket's name (a later client finds none and spools), accepts what was
 * already queued for ACCEPT_QUEUED_MS, lets a request being served finish (at most
 * REQUEST_GRACE_MS) and ends every other connection, upgraded ones included (the server would
 * otherwise wait for them).
 */
export function listenUnixSocket(
  app: Hono,
  dir: string,
  name: string,
  { pathLimit, upgrade }: { pathLimit: number; upgrade?: UpgradeHandler },
): Promise<ListeningSocket> {
  const full = path.join(dir, name);
  fs.rmSync(full, { force: true });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  const upgraded = new Set<Duplex>();
  if (upgrade) {
    server.on('upgrade', (request: IncomingMessage, stream: Duplex, head: Buffer) => {
      upgraded.add(stream);
      stream.once('close', () => upgraded.delete(stream));
      upgrade(request, stream, head);
    });
  }
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      fs.chmodSync(full, 0o600);
      resolve({
        path: full,
        close: async () => {
          // The caller still holds the data dir's lock: the name is this server's, no newer one's.
          fs.rmSync(full, { force: true });
          await new Promise((settle) => setTimeout(settle, ACCEPT_QUEUED_MS));
          await new Promise<void>((done) => {
            // A hook mid-request is let finish (its event is committed before the reply), up to
            // a bound; an idle keep-alive connection and an MCP session end at once.
            const cut = setTimeout(() => server.closeAllConnections?.(), REQUEST_GRACE_MS);
            server.close(() => {
              clearTimeout(cut);
              done();
            });
            server.closeIdleConnections?.();
            for (const stream of upgraded) stream.destroy();
          });
        },
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
