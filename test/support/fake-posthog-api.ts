import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dashboardBody, insightBody } from './posthog-shapes.js';

interface Item {
  id: number;
  name: string;
  tags: string[];
  [key: string]: unknown;
}

/** A real HTTP stand-in for PostHog's insights and dashboards REST API. */
export async function startFakePostHogApi(expectedKey: string) {
  const store = { dashboards: [] as Item[], insights: [] as Item[] };
  const calls: string[] = [];
  let nextId = 1;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      calls.push(`${req.method} ${req.url}`);
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.headers.authorization !== `Bearer ${expectedKey}`) return send(401, { detail: 'bad key' });
      const url = new URL(req.url ?? '/', 'http://x');
      const match = /^\/api\/projects\/(\w+)\/(insights|dashboards)\/(?:(\d+)\/)?$/.exec(url.pathname);
      if (!match) return send(404, { detail: 'not found' });
      const list = store[match[2] as 'insights' | 'dashboards'];
      const id = match[3] ? Number(match[3]) : null;
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      if (req.method === 'POST' || req.method === 'PATCH') {
        // Like PostHog, a body outside the API's shapes is a 400 naming what is wrong.
        const shape = match[2] === 'insights' ? insightBody : dashboardBody;
        const checked = (req.method === 'PATCH' ? shape.partial() : shape).safeParse(body);
        if (!checked.success) return send(400, { type: 'validation_error', detail: checked.error.message });
      }
      if (req.method === 'GET' && id === null) {
        const search = url.searchParams.get('search') ?? '';
        return send(200, { results: list.filter((i) => i.name.includes(search)) });
      }
      if (req.method === 'POST' && id === null) {
        const item = { tags: [], ...body, id: nextId++ } as unknown as Item;
        list.push(item);
        return send(201, item);
      }
      const item = list.find((i) => i.id === id);
      if (!item) return send(404, { detail: 'not found' });
      if (req.method === 'PATCH') {
        Object.assign(item, body);
        return send(200, item);
      }
      return send(405, { detail: 'method' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    store,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
