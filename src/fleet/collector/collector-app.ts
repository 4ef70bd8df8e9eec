import { Hono, type Context } from 'hono';
import type { Logger } from '../../log.js';
import { loopbackGuards } from '../../http-edge/index.js';
import { renderDashboardPage } from '../dashboards/dashboard-page.js';
import { renderReviewSection } from '../review/review-section.js';
import { reviewNewestPair } from '../review/review-source.js';
import { decodeCaptureBody, MAX_CAPTURE_BYTES } from './capture-body.js';
import type { CollectedEvent } from './collected-event.js';
import type { FleetStore } from './fleet-store.js';

/** The routes posthog-node and posthog-js post to. */
const CAPTURE_PATHS = ['/batch', '/capture', '/e', '/i/v0/e'] as const;

export interface CollectorAppDeps {
  store: FleetStore;
  /**
   * Takes decoded events before the reply: into the store (SQLite: what was new and what was a
   * duplicate), or into the spool a ClickHouse store is filled from (how many were accepted).
   */
  ingest(events: readonly CollectedEvent[]): Promise<Record<string, number>>;
  /** Events accepted but not in the store yet, and the store's last failure (batched stores). */
  backlog?(): { spooled: number; failing: string | null };
  /** The bound port, for the Host check (known only once listening). */
  port: () => number;
  now: () => number;
  log: Logger;
}

/** A PostHog-compatible capture endpoint and the dashboard over what it stored. */
export function createCollectorApp(deps: CollectorAppDeps): Hono {
  const app = new Hono();
  // The same loopback guards as the worker (Host, browser origin, JSON, size); the dashboard may
  // be opened in a browser by typing its URL, and may link to itself (same-origin).
  app.use('*', ...loopbackGuards({ port: deps.port, maxBodyBytes: MAX_CAPTURE_BYTES, requireJson: true, allowSameOrigin: true }));
  const capture = async (c: Context) => {
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const gzip = /gzip/i.test(c.req.header('content-encoding') ?? '') || /gzip/i.test(c.req.query('compression') ?? '');
    const decoded = decodeCaptureBody(raw, { gzip, nowMs: deps.now() });
    if (!decoded.ok) {
      deps.log.warn('collector refused a capture body', { path: c.req.path, status: decoded.status, reason: decoded.reason });
      return c.json({ status: 0, error: decoded.reason }, decoded.status);
    }
    const counts = decoded.events.length > 0 ? await deps.ingest(decoded.events) : {};
    if (decoded.rejected > 0) deps.log.warn('collector skipped invalid events', { path: c.req.path, rejected: decoded.rejected });
    return c.json({ status: 1, ...counts, rejected: decoded.rejected });
  };
  for (const path of CAPTURE_PATHS) {
    app.post(path, capture);
    app.post(`${path}/`, capture);
  }
  app.get('/', (c) => c.redirect('/dashboard'));
  app.get('/health', async (c) => c.json({ status: 'ok', events: await deps.store.count(), ...(deps.backlog ? deps.backlog() : {}) }));
  const reviews = deps.store.reviewSource();
  app.get('/dashboard', async (c) => {
    const results = await deps.store.readTiles();
    const newest = await reviewNewestPair(reviews);
    const below = renderReviewSection(newest.review, newest.reason ?? '');
    return c.html(renderDashboardPage(results, { events: await deps.store.count(), generatedAtMs: deps.now(), below }));
  });
  app.notFound((c) => c.json({ status: 0, error: 'not found' }, 404));
  app.onError((error, c) => {
    deps.log.error('collector request failed', { path: c.req.path, error: error.message });
    return c.json({ status: 0, error: 'collector error' }, 500);
  });
  return app;
}
