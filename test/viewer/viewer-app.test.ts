import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { MemoryAccess } from '../../src/memory/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createViewerApp, createViewerAuth, viewerCookieName } from '../../src/viewer/index.js';
import { addObservation, seedShop } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const PORT = 41234;
const HOST = `127.0.0.1:${PORT}`;

describe('the viewer', () => {
  const temp = makeTempDir('memtrace-viewer-');
  let store: Store;
  let ids: Record<string, number>;
  let app: ReturnType<typeof createViewerApp>;
  let auth: ReturnType<typeof createViewerAuth>;
  let cookie: string;
  const accesses: Array<{ via: string; access: MemoryAccess }> = [];
  let counter = 0;
  beforeAll(async () => {
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    ids = seedShop(store);
    addObservation(store, { title: '<script>alert(1)</script> & "quotes"', narrative: '<img src=x onerror=alert(2)>' });
    // Two observer calls of session-a on one UTC day: one with a known cost, one with usage unknown.
    const day = '2026-11-27';
    const first = store.observerCalls.reserve({
      day,
      startedAt: 1,
      sessionId: 'session-a',
      purpose: 'observe',
      provider: 'claude-code',
      model: 'haiku',
      events: 6,
      reservedTokens: 9_000,
    });
    store.observerCalls.settle(first, {
      endedAt: 2,
      outcome: 'ok',
      model: 'claude-haiku-4-5',
      tokensIn: 3_100,
      tokensOut: 420,
      costUsd: 0.0052,
      costEstimated: false,
    });
    const second = store.observerCalls.reserve({
      day,
      startedAt: 3,
      sessionId: 'session-a',
      purpose: 'observe',
      provider: 'claude-code',
      model: 'haiku',
      events: 2,
      reservedTokens: 7_000,
    });
    store.observerCalls.settle(second, { endedAt: 4, outcome: 'unknown', model: null, tokensIn: null, tokensOut: null, costUsd: null, costEstimated: false });
    auth = createViewerAuth(() => `secret-${++counter}-${'x'.repeat(30)}`);
    app = createViewerApp({
      store,
      auth,
      access: { record: (via, access) => accesses.push({ via, access }) },
      port: () => PORT,
      clock: { now: () => 0 },
      nonce: () => 'n0nce',
      budgetTokens: 1_000_000,
      log: silentLogger,
    });
    const exchanged = await get(`/?token=${auth.urlToken}`, {});
    cookie = exchanged.headers.get('set-cookie')!.split(';')[0]!;
  });
  afterAll(() => {
    store.close();
    temp.cleanup();
  });
  function get(pathname: string, headers: Record<string, string> = { cookie }, method = 'GET') {
    return app.request(pathname, { method, headers: { host: HOST, ...headers } });
  }

  it('exchanges the one-time URL token for an HttpOnly SameSite=Strict cookie and drops the token from the address', async () => {
    const fresh = createViewerAuth(() => 'a'.repeat(43));
    const viewer = createViewerApp({
      store,
      auth: fresh,
      access: { record: () => undefined },
      port: () => PORT,
      clock: { now: () => 0 },
      nonce: () => 'n',
      log: silentLogger,
    });
    const res = await viewer.request(`/?token=${fresh.urlToken}`, { headers: { host: HOST } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    expect(res.headers.get('set-cookie')).toBe(`memtrace_viewer_${PORT}=${'a'.repeat(43)}; Path=/; HttpOnly; SameSite=Strict`);
    const again = await viewer.request(`/?token=${fresh.urlToken}`, { headers: { host: HOST } });
    expect(again.status).toBe(401);
    expect(await again.text()).toContain('This link was already used');
  });

  it("refuses a request without its cookie, with a wrong one, another viewer's, or a wrong token (401)", async () => {
    for (const [pathname, headers] of [
      ['/', {}],
      ['/observation/1', {}],
      ['/api/search?q=checkout', {}],
      ['/', { cookie: `${viewerCookieName(PORT)}=guess` }],
      ['/', { cookie: cookie.replace(viewerCookieName(PORT), viewerCookieName(PORT + 1)) }],
      ['/?token=guess', {}],
    ] as const) {
      const res = await get(pathname, headers);
      expect(res.status, pathname).toBe(401);
      expect(await res.text()).not.toContain('Checkout total');
    }
  });

  it('refuses a foreign Host (421) and a page of another site, even another localhost port (403), cookie or not', async () => {
    for (const host of ['evil.example', `evil.example:${PORT}`, '127.0.0.1:1', `localhost.evil.example:${PORT}`]) {
      expect((await get('/', { host, cookie })).status, host).toBe(421);
    }
    expect((await get('/', { cookie, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await get('/api/search?q=checkout', { cookie, 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:9999' })).status).toBe(403);
    expect((await get('/', { cookie, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('has no write routes: every other method is 405', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect((await get(`/observation/${ids.discount}`, { cookie }, method)).status, method).toBe(405);
  });

  it('shows sessions and the timeline newest first, with a CSP that allows only its own nonce', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'nonce-n0nce'; script-src 'nonce-n0nce'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!127\.0\.0\.1)/);
    const timeline = html.slice(html.indexOf('id="timeline"'));
    expect(timeline.indexOf('Blog posts get an RSS feed')).toBeLessThan(timeline.indexOf('Checkout total ignored the discount code'));
    expect(html).toContain('href="/session/session-b"');
  });

  it('escapes everything it shows', async () => {
    const html = await (await get('/')).text();
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;quotes&#34;');
    expect(html).not.toContain('<script>alert(1)');
  });

  it('searches as a page and as JSON for the live search, counted as viewer searches', async () => {
    const page = await (await get('/search?q=why+VAT+before+the+coupon')).text();
    expect(page).toContain(`href="/observation/${ids.discount}"`);
    const json = (await (await get('/api/search?q=stripe%20refund')).json()) as { results: Array<{ id: number }> };
    expect(json.results[0]!.id).toBe(ids.webhook);
    expect(accesses.filter((a) => a.via === 'viewer' && a.access.kind === 'search')).toHaveLength(2);
    const bad = await get('/api/search?q=%22(');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'Nothing to search: the query has no words to search for (letters or digits).' });
  });

  it('shows an observation with its provenance and claim checks, and a session with its summary', async () => {
    const html = await (await get(`/observation/${ids.discount}`)).text();
    expect(html).toContain('Checkout total ignored the discount code');
    expect(html).toContain('id="provenance"');
    expect(html).toContain('observer anthropic · model claude-haiku-4-5 · prompt test');
    expect(html).toContain('id="claims"');
    const session = await (await get('/session/session-a')).text();
    expect(session).toContain('<strong>Learned:</strong> the order of discount and tax matters');
    expect((await get('/observation/999999')).status).toBe(404);
    expect((await get('/session/nope')).status).toBe(404);
  });

  it('shows the observer’s spend per UTC day and per session, and on the session’s page', async () => {
    const spend = await (await get('/spend')).text();
    expect(spend).toContain('Daily budget: 1,000,000 tokens');
    // Calls (1 with unknown usage), tool events, tokens in and out, cost; the day's counted tokens include the unknown call at its reservation.
    expect(spend).toContain(
      '<tr><td>2026-11-27</td><td>2 <span class="meta">(1 unknown)</span></td><td>8</td><td>3,100</td><td>420</td><td>$0.0052</td><td>10,520</td></tr>',
    );
    expect(spend).toContain(
      '<a href="/session/session-a">session-a</a></td><td>2 <span class="meta">(1 unknown)</span></td><td>8</td><td>3,100</td><td>420</td><td>$0.0052</td>',
    );
    const session = await (await get('/session/session-a')).text();
    expect(session).toContain('Observer: 2 call(s) for 8 tool event(s), 3,100 tokens in / 420 out, cost $0.0052');
  });
});
