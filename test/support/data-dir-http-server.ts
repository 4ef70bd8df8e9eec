import fs from 'node:fs';
import http from 'node:http';

/** One request a forwarder made, whole. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type Answer = (res: http.ServerResponse) => void;

/**
 * A plain HTTP server on a data dir's worker.sock (the dir made 0700 and ours), answering each
 * request with `answer`: to see exactly what a forwarder sends and what it does with each answer.
 */
async function listenOnDataDir(dataDir: string, answer: Answer): Promise<{ server: http.Server; seen: SeenRequest[] }> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      answer(res);
    });
  });
  // Bound from inside the data dir, as the worker does: the full path may be too long for an address.
  const cwd = process.cwd();
  process.chdir(dataDir);
  try {
    await new Promise<void>((resolve) => server.listen('worker.sock', resolve));
  } finally {
    process.chdir(cwd);
  }
  return { server, seen };
}

/** The servers a test file started, each closed by `close()` (in afterEach). */
export class DataDirServers {
  private readonly servers: http.Server[] = [];

  async listen(dataDir: string, answer: Answer): Promise<SeenRequest[]> {
    const { server, seen } = await listenOnDataDir(dataDir, answer);
    this.servers.push(server);
    return seen;
  }

  async close(): Promise<void> {
    for (const server of this.servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  }
}
