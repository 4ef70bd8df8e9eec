import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { rawRequest } from '../support/raw-http.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

describe('HTTP API with garbage input', () => {
  let h: Harness;
  let base: string;
  let host: string;
  beforeAll(async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"text":""}'] }));
    base = h.worker.url;
    host = `127.0.0.1:${h.worker.port}`;
  });
  afterAll(() => h.stop());

  const post = (route: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    rawRequest(`${base}${route}`, {
      method: 'POST',
      headers: { host, 'content-type': 'application/json', authorization: `Bearer ${h.token}`, ...headers },
      body,
    });

  const routes = ['/api/sessions/init', '/api/sessions/observations', '/api/sessions/summarize', '/api/sessions/end'];

  it.each(routes)('answers invalid JSON on %s with 400 invalid_json', async (route) => {
    const res = await post(route, '{"session_id": ');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('invalid_json');
  });

  it.each(routes)('names the missing session_id on %s', async (route) => {
    const res = await post(route, '{}');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'missing_field', field: 'session_id' });
  });

  it.each(routes)('rejects a JSON array body on %s', async (route) => {
    expect((await post(route, '[1,2]')).status).toBe(400);
  });

  it('names a field of the wrong type', async () => {
    const res = await post('/api/sessions/observations', JSON.stringify({ ...toolEvent('s', 1), tool_name: 42 }));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'invalid_field', field: 'tool_name' });
  });

  it('requires tool_input and tool_response to be present', async () => {
    const { tool_response: _, ...partial } = toolEvent('s', 2);
    const res = await post('/api/sessions/observations', JSON.stringify(partial));
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'missing_field', field: 'tool_response' });
  });

  it('answers a 2 MiB body with 413', async () => {
    const res = await post('/api/sessions/observations', JSON.stringify({ ...toolEvent('s', 3), tool_response: 'x'.repeat(2 * 1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('body_too_large');
  });

  it.each([1.5, 2, 8])('refuses a chunked %s MiB body and stores nothing', async (mib) => {
    const before = h.worker.store.queue.depth();
    const res = await post('/api/sessions/observations', JSON.stringify({ ...toolEvent('s', 4), tool_response: 'x'.repeat(mib * 1024 * 1024) }), {
      'transfer-encoding': 'chunked',
    });
    expect(res.status).toBe(413);
    expect(h.worker.store.queue.depth()).toBe(before);
  });

  it.each(['evil.example', `evil.example:${0}`, '127.0.0.1', 'localhost:1'])('answers Host %s with 421', async (badHost) => {
    const res = await rawRequest(`${base}/health`, { headers: { host: badHost } });
    expect(res.status).toBe(421);
  });

  it.each(['localhost', '127.0.0.1', '[::1]'])('accepts Host %s with the port', async (name) => {
    const res = await rawRequest(`${base}/health`, { headers: { host: `${name}:${h.worker.port}` } });
    expect(res.status).toBe(200);
  });

  it('sends no CORS headers', async () => {
    const res = await rawRequest(`${base}/health`, { headers: { host, origin: 'https://evil.example' } });
    expect(Object.keys(res.headers).filter((k) => k.startsWith('access-control'))).toEqual([]);
  });

  it('answers an unknown route with 404 JSON', async () => {
    const res = await rawRequest(`${base}/api/nope`, { headers: { host, authorization: `Bearer ${h.token}` } });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body).error.code).toBe('not_found');
  });

  it('names a bad budget_tokens', async () => {
    const res = await rawRequest(`${base}/api/context/inject?budget_tokens=lots`, { headers: { host, authorization: `Bearer ${h.token}` } });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.field).toBe('budget_tokens');
  });

  it('never answers 5xx to a fuzzed body', async () => {
    const bodies = [
      '',
      'null',
      '"str"',
      '1e309',
      '{"session_id":null}',
      `{"session_id":"${'x'.repeat(300)}"}`,
      '{"__proto__":{"a":1},"session_id":"s"}',
      '\u0000\u0001',
      '{"session_id":"s","tool_name":"T","tool_input":{},"tool_response":null,"tool_use_id":7}',
    ];
    for (const route of routes) for (const body of bodies) expect((await post(route, body)).status).toBeLessThan(500);
  });

  it('queues an event, then reports the same tool_use_id as a duplicate', async () => {
    const first = await post('/api/sessions/observations', JSON.stringify(toolEvent('dup', 9)));
    expect(first.status).toBe(202);
    expect(JSON.parse(first.body)).toMatchObject({ status: 'queued' });
    const again = await post('/api/sessions/observations', JSON.stringify(toolEvent('dup', 9)));
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ status: 'duplicate' });
  });

  it('reports health', async () => {
    const res = await rawRequest(`${base}/health`, { headers: { host } });
    expect(JSON.parse(res.body)).toMatchObject({ status: 'ok', provider: 'replay' });
    expect(typeof JSON.parse(res.body).queue_depth).toBe('number');
  });
});
