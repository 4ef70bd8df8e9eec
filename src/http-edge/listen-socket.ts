import fs from 'node:fs';
import path from 'node:path';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

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
 * Serves `listener` (a plain node:http request listener) on a Unix socket inside `dir` (0600, in
 * a folder that must already be private). A socket file left there by a dead process is
 * replaced: the caller holds the data dir's lock,
 * so no live worker owns it. An address too long for a Unix socket is bound relative to `dir`.
 * With `upgrade`, connections that ask to leave HTTP go to it; without, they are refused (closed).
 * Closing ends every connection, upgraded ones included (the server would otherwise wait for them).
 */
export function listenUnixSocket(
  listener: (request: IncomingMessage, response: ServerResponse) => void,
  dir: string,
  name: string,
  { pathLimit, upgrade }: { pathLimit: number; upgrade?: UpgradeHandler },
): Promise<ListeningSocket> {
  const full = path.join(dir, name);
  fs.rmSync(full, { force: true });
  const server = createServer(listener);
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
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections?.();
            for (const stream of upgraded) stream.destroy();
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
