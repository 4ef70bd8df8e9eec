import { describe, expect, it } from 'vitest';
import { createHookApp, type HookAppServices } from '../../src/server/hook-app.js';

/** The hooks' socket app with its intake answering "ignored": only the life-cycle parts matter here. */
function hookApp(extra: Partial<HookAppServices>) {
  const services: HookAppServices = {
    now: () => 0,
    uptimeS: () => null,
    handle: () => ({ status: 200, output: '', kind: null, ignored: 'test' }),
    keepUnreadable: () => undefined,
    spoolFailed: () => null,
    ...extra,
  };
  const handler = createHookApp(services);
  // One request through the socket's handler, as listen-socket.ts drives it.
  return {
    request(url: string, init: { method: string; headers?: Record<string, string>; body: string }) {
      const exchange = handler({ method: init.method, url, headers: init.headers ?? {} });
      exchange.push(Buffer.from(init.body));
      const reply = exchange.end(true);
      return { status: reply.status, json: () => JSON.parse(reply.body) as unknown };
    },
  };
}

describe('the hooks’ socket and upgrades', () => {
  it('tells the worker which install each hook ran from, before the payload is read', () => {
    const seen: string[] = [];
    const app = hookApp({ noticeBin: (bin) => seen.push(bin) });
    app.request('/hook/claude-code/post-tool-use', { method: 'POST', headers: { 'x-memtrace-bin': '/usr/lib/node_modules/memtrace/bin' }, body: '{}' });
    app.request('/hook/claude-code/post-tool-use', { method: 'POST', body: '{}' });
    expect(seen).toEqual(['/usr/lib/node_modules/memtrace/bin']);
  });

  it('answers a hand-over request 202 for a newer version, 409 otherwise, 400 without one', () => {
    const app = hookApp({ handOver: (version) => (version === '0.3.0' ? 'accepted' : 'refused') });
    const ask = (body: string) => app.request('/worker/hand-over', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(ask('{"version":"0.3.0"}').status).toBe(202);
    const refused = ask('{"version":"0.1.0"}');
    expect(refused.status).toBe(409);
    expect(refused.json()).toEqual({ error: { code: 'not_newer', message: 'this worker is not older than 0.1.0' } });
    expect(ask('not json').status).toBe(400);
  });

  it('has no hand-over route where the worker takes no part in upgrades (404, as a worker from before take-over)', () => {
    const app = hookApp({});
    expect(app.request('/worker/hand-over', { method: 'POST', body: '{"version":"9.0.0"}' }).status).toBe(404);
  });
});
