import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCollector, type RunningCollector } from '../../src/fleet/collector/index.js';
import { rawRequest } from '../support/raw-http.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * Issue 8's shape: the collector reached into the worker's src/server/ for its Host check and
 * had no Origin check, so a web page could post fake fleet events into the local dashboard.
 * Both servers now run src/http-edge's guards.
 */
describe('the local collector behind the shared loopback guards', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let collector: RunningCollector;
  afterEach(async () => {
    await collector?.close();
    temp?.cleanup();
  });

  it('refuses a web page’s post and a foreign Host, stores nothing, and still serves the dashboard to a typed URL', async () => {
    temp = makeTempDir();
    collector = await startCollector({ dbFile: path.join(temp.dir, 'collector.db'), port: 0 });
    const host = `127.0.0.1:${collector.port}`;
    const body = JSON.stringify({
      api_key: 'k',
      batch: [{ event: 'observer_turn_rollup', distinct_id: 'x', uuid: '11111111-1111-4111-8111-111111111111', properties: { count: 1 } }],
    });
    const fromPage = await rawRequest(`${collector.url}/batch/`, {
      method: 'POST',
      headers: { host, 'content-type': 'text/plain', origin: 'https://evil.example' },
      body,
    });
    expect(fromPage.status).toBe(403);
    const rebound = await rawRequest(`${collector.url}/batch/`, {
      method: 'POST',
      headers: { host: 'evil.example', 'content-type': 'application/json' },
      body,
    });
    expect(rebound.status).toBe(421);
    expect(await collector.store.count()).toBe(0);
    const typed = await rawRequest(`${collector.url}/dashboard`, { headers: { host, 'sec-fetch-site': 'none' } });
    expect(typed.status).toBe(200);
    const crossSite = await rawRequest(`${collector.url}/dashboard`, { headers: { host, 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
  });
});
