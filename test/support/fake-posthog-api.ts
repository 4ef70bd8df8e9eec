import http from 'node:http';
import type { AddressInfo } from 'node:net';
import createHogQLParser from '@posthog/hogql-parser';
import { dashboardBody, insightBody, queryRequest } from './posthog-shapes.js';

interface Item {
  id: number;
  name: string;
  tags: string[];
  [key: string]: unknown;
}

/** What a test's stand-in for ClickHouse returns for one HogQL query. */
export interface QueryTable {
  columns: string[];
  results: unknown[][];
}

/**
 * A real HTTP stand-in for PostHog's insights and dashboards REST API and its query API
 * (`POST /api/projects/:id/query/`). A query is checked like PostHog checks it — the request's
 * shape, then the HogQL with PostHog's own parser (a syntax error is a 400) — and answered by
 * `answerQuery` in PostHog's HogQLQueryResponse shape.
 */
export async function startFakePostHogApi(expectedKey: string, options: { answerQuery?: (hogql: string) => QueryTable } = {}) {
  const store = { dashboards: [] as Item[], insights: [] as Item[] };
  const calls: string[] = [];
  const queries: string[] = [];
  let nextId = 1;
  const parser = options.answerQuery ? await createHogQLParser() : null;
  // Pages of one query differ in OFFSET only, which cannot change whether it parses.
  const parseErrors = new Map<string, string | null>();
  const syntaxError = (hogql: string): string | null => {
    const key = hogql.replace(/OFFSET \d+/g, 'OFFSET 0');
    if (!parseErrors.has(key)) {
      const ast = JSON.parse(parser!.parseSelect(hogql, true)) as { error?: boolean; message?: string };
      parseErrors.set(key, ast.error ? (ast.message ?? 'syntax error') : null);
    }
    return parseErrors.get(key)!;
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      calls.push(`${req.method} ${req.url}`);
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.headers.authorization !== `Bearer ${expectedKey}`) return send(401, { detail: 'bad key' });
      const url = new URL(req.url ?? '/', 'http://x');
      if (/^\/api\/projects\/\w+\/query\/$/.test(url.pathname) && options.answerQuery) {
        if (req.method !== 'POST') return send(405, { detail: 'method' });
        const checked = queryRequest.safeParse(raw ? JSON.parse(raw) : {});
        if (!checked.success) return send(400, { type: 'validation_error', code: 'invalid_input', detail: checked.error.message });
        const hogql = checked.data.query.query;
        const error = syntaxError(hogql);
        if (error !== null) return send(400, { type: 'validation_error', code: 'syntax_error', detail: error });
        queries.push(hogql);
        const table = options.answerQuery(hogql);
        return send(200, {
          cache_key: `cache_${queries.length}`,
          is_cached: false,
          last_refresh: new Date(0).toISOString(),
          query_status: null,
          timings: [{ k: './query', t: 0.01 }],
          query: hogql,
          hogql,
          columns: table.columns,
          types: table.columns.map((c) => [c, typeof table.results[0]?.[table.columns.indexOf(c)] === 'number' ? 'Float64' : 'String']),
          results: table.results,
          hasMore: false,
          limit: null,
          offset: null,
          modifiers: {},
        });
      }
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
    queries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
