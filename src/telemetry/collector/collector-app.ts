import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { isAllowedHost } from '../../http-edge/index.js';
import { renderDashboardPage } from '../dashboards/svg-chart.js';
import { runTiles } from '../dashboards/run-tiles.js';
import { decodeCaptureBody, MAX_CAPTURE_BYTES } from './capture-body.js';
import type { CollectorStore } from './collector-store.js';

export const CAPTURE_PATHS = ['/batch', '/batch/', '/capture', '/capture/', '/e', '/e/', '/i/v0/e', '/i/v0/e/'];

/** A PostHog-compatible capture endpoint and the dashboard over what it stored. */
export function createCollectorApp(deps: { store: CollectorStore; port: () => number; now: () => number }): Hono {
  const app = new Hono();
  app.use('*', async (c, next) => {
    if (!isAllowedHost(c.req.header('host'), deps.port())) return c.json({ error: 'misdirected request' }, 421);
    await next();
  });
  const capture = async (c: Context) => {
    const raw = Buffer.from(await c.req.arrayBuffer());
    const decoded = decodeCaptureBody(raw, { gzip: c.req.header('content-encoding') === 'gzip', nowMs: deps.now() });
    if (!decoded.ok) return c.json({ status: 0, error: decoded.reason }, decoded.status);
    const stored = deps.store.insert(decoded.events);
    return c.json({ status: 1, stored, duplicates: decoded.events.length - stored, rejected: decoded.rejected });
  };
  const limit = bodyLimit({ maxSize: MAX_CAPTURE_BYTES, onError: (c) => c.json({ status: 0, error: `body over ${MAX_CAPTURE_BYTES} bytes` }, 413) });
  for (const path of CAPTURE_PATHS) app.post(path, limit, capture);
  app.get('/', (c) => c.redirect('/dashboard'));
  app.get('/health', (c) => c.json({ status: 'ok', events: deps.store.count() }));
  app.get('/dashboard', (c) => {
    const results = runTiles(deps.store.db);
    return c.html(renderDashboardPage(results, { events: deps.store.count(), generatedAt: new Date(deps.now()).toISOString() }));
  });
  app.notFound((c) => c.json({ error: 'not found' }, 404));
  app.onError((error, c) => c.json({ status: 0, error: `collector error: ${error.message}` }, 500));
  return app;
}
