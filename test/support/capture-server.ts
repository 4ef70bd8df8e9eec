import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface CapturedEvent {
  event: string;
  uuid?: string;
  distinct_id?: string;
  properties: Record<string, unknown>;
  timestamp?: string;
}

export interface CaptureServer {
  url: string;
  /** Every byte received, decompressed, for canary searches. */
  raw: Buffer[];
  events: CapturedEvent[];
  requests: number;
  /** 'ok' answers 200; 'error' answers 500; 'down' closes connections; 'hang' never answers. */
  mode: 'ok' | 'error' | 'down' | 'hang';
  /** Closes the connections parked by 'hang'. */
  releaseHung(): void;
  close(): Promise<void>;
}

/** A PostHog-compatible capture endpoint that records what posthog-node sends. */
export async function startCaptureServer(): Promise<CaptureServer> {
  const sockets = new Set<import('node:net').Socket>();
  const state: CaptureServer = {
    url: '',
    raw: [],
    events: [],
    requests: 0,
    mode: 'ok',
    close: async () => undefined,
    releaseHung: () => {
      for (const s of hung) s.destroy();
      hung.clear();
    },
  };
  const hung = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests += 1;
      if (state.mode === 'hang') {
        hung.add(req.socket);
        return;
      }
      if (state.mode === 'down') {
        req.socket.destroy();
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip' || (body[0] === 0x1f && body[1] === 0x8b)) body = gunzipSync(body);
      state.raw.push(Buffer.from(req.url ?? ''), body);
      if (state.mode === 'error') {
        res.writeHead(500).end('{"error":"scripted"}');
        return;
      }
      try {
        const json = JSON.parse(body.toString('utf8')) as { batch?: CapturedEvent[] } & CapturedEvent;
        for (const e of json.batch ?? [json]) state.events.push(e);
      } catch {
        res.writeHead(400).end('{"error":"bad json"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":1}');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return state;
}
