import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { PostHog } from 'posthog-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCollector, type RunningCollector } from '../../../src/fleet/collector/index.js';
import { TILES } from '../../../src/fleet/dashboards/index.js';
import { makeTempDir } from '../../support/temp-dir.js';

describe('memtrace collector', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let collector: RunningCollector;
  beforeEach(async () => {
    temp = makeTempDir();
    collector = await startCollector({ dbFile: path.join(temp.dir, 'collector.db'), port: 0 });
  });
  afterEach(async () => {
    await collector.close();
    temp.cleanup();
  });

  const post = (route: string, body: Buffer | string, headers: Record<string, string> = {}) =>
    fetch(`${collector.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const event = (uuid: string, extra: Record<string, unknown> = {}) => ({
    event: 'observer_turn_rollup',
    distinct_id: 'install-1',
    uuid,
    properties: { count: 1 },
    timestamp: '2026-06-01T00:00:00Z',
    ...extra,
  });

  it.each([
    ['gzip', false],
    ['plain', true],
  ])('accepts %s batches from real posthog-node', async (_, disableCompression) => {
    const client = new PostHog('phc_local', { host: collector.url, flushAt: 100, flushInterval: 0, disableCompression, fetchRetryCount: 0 });
    for (let i = 0; i < 5; i += 1)
      client.capture({ distinctId: 'install-1', event: 'observer_turn_rollup', properties: { count: i }, uuid: `00000000-0000-4000-8000-00000000000${i}` });
    await client.flush();
    await client.shutdown();
    expect(await collector.store.count()).toBe(5);
  });

  it('keeps a uuid once however often it is sent', async () => {
    const body = JSON.stringify({ api_key: 'k', batch: [event('11111111-1111-4111-8111-111111111111'), event('11111111-1111-4111-8111-111111111111')] });
    expect(await (await post('/batch/', body)).json()).toMatchObject({ status: 1, stored: 1, duplicates: 1 });
    await post('/batch/', gzipSync(body), { 'content-encoding': 'gzip' });
    expect(await collector.store.count()).toBe(1);
  });

  it.each(['/capture/', '/e/', '/i/v0/e/'])('accepts a single event on %s', async (route) => {
    const res = await post(route, JSON.stringify({ api_key: 'k', ...event('22222222-2222-4222-8222-222222222222') }));
    expect(res.status).toBe(200);
    expect(await collector.store.count()).toBe(1);
  });

  it('answers a malformed body with 400 and keeps the good events of other requests', async () => {
    await post('/batch/', JSON.stringify({ api_key: 'k', batch: [event('33333333-3333-4333-8333-333333333333')] }));
    for (const bad of ['{not json', '[]', JSON.stringify({ api_key: 'k', batch: 'nope' }), JSON.stringify({ batch: [{ event: 'x' }] })]) {
      expect((await post('/batch/', bad)).status).toBe(400);
    }
    expect((await post('/batch/', Buffer.from([0x1f, 0x8b, 1, 2, 3]), { 'content-encoding': 'gzip' })).status).toBe(400);
    expect(await collector.store.count()).toBe(1);
  });

  it('skips invalid events inside a good batch and says how many', async () => {
    const body = JSON.stringify({ api_key: 'k', batch: [event('44444444-4444-4444-8444-444444444444'), { event: 42 }, { event: 'x' }] });
    expect(await (await post('/batch/', body)).json()).toMatchObject({ stored: 1, rejected: 2 });
  });

  it('answers a 10 MB body with 413', async () => {
    const res = await post(
      '/batch/',
      JSON.stringify({ api_key: 'k', batch: [event('55555555-5555-4555-8555-555555555555', { properties: { pad: 'x'.repeat(10 * 1024 * 1024) } })] }),
    );
    expect(res.status).toBe(413);
    expect(await collector.store.count()).toBe(0);
  });

  it('answers a gzip bomb with 413', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, ' '));
    expect(bomb.length).toBeLessThan(5 * 1024 * 1024);
    expect((await post('/batch/', bomb, { 'content-encoding': 'gzip' })).status).toBe(413);
  });

  it('serves the dashboard with every tile and no external resources', async () => {
    const html = await (await fetch(`${collector.url}/dashboard`)).text();
    expect(html.match(/<section class="tile"/g)).toHaveLength(TILES.length);
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
  });
});
