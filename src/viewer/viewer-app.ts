import { Hono, type Context } from 'hono';
import { observationView } from '../memory/provenance-view.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { loopbackGuards } from '../http-edge/index.js';
import { createMemorySearch, createTimeline, EmptyQueryError, recentSessions, type MemoryAccessSink, type SearchHit } from '../memory/index.js';
import { OBSERVATION_TYPES, type ObservationType } from '../vocabulary/observation.js';
import type { Store } from '../store/index.js';
import { viewerCookieName, type ViewerAuth } from './viewer-auth.js';
import { homeBody, messageBody, observationBody, page, searchBody, sessionBody } from './viewer-pages.js';
import { sessionSpendLine, spendBody } from './viewer-spend.js';

export interface ViewerDeps {
  store: Store;
  auth: ViewerAuth;
  access: MemoryAccessSink;
  /** The bound port, for the Host check (known only once listening). */
  port: () => number;
  clock: Clock;
  /** A fresh value per response for the inline style and script (CSP nonce). */
  nonce: () => string;
  /** The daily observer budget of this data dir's configuration, shown beside the spend. */
  budgetTokens?: number;
  log: Logger;
}

const RECENT = 50;
const SPEND_DAYS = 30;
const TYPES: ReadonlySet<string> = new Set([...OBSERVATION_TYPES, 'summary']);

/**
 * The read-only memory viewer. Every request passes the shared loopback guards (Host 421; a page
 * of another site, even another localhost port, 403), then needs the session cookie the printed
 * link set (401 without). Only GET and HEAD exist: nothing here can change the memory.
 */
export function createViewerApp(deps: ViewerDeps): Hono {
  const app = new Hono();
  const search = createMemorySearch(deps.store.db);
  const timeline = createTimeline(deps.store.db);

  app.use('*', ...loopbackGuards({ port: deps.port, maxBodyBytes: 1024, requireJson: false, allowSameOrigin: true }));
  app.use('*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return c.text('the viewer is read-only', 405, { Allow: 'GET, HEAD' });
    const token = c.req.path === '/' ? c.req.query('token') : undefined;
    if (token !== undefined) {
      const secret = deps.auth.exchange(token);
      if (secret === null)
        return html(
          c,
          401,
          'Link already used',
          messageBody('This link was already used', "The viewer's link opens it once, in one browser. Restart `memtrace viewer` for a new link."),
        );
      // The token leaves the address bar at once; the cookie carries the session from here.
      return c.body(null, 303, { Location: '/', 'Set-Cookie': deps.auth.cookie(secret, viewerCookieName(deps.port())) });
    }
    if (!deps.auth.admits(c.req.header('cookie'), viewerCookieName(deps.port()))) {
      return c.req.path.startsWith('/api/')
        ? c.json({ error: 'open the link memtrace viewer printed first' }, 401)
        : html(
            c,
            401,
            'Open the printed link',
            messageBody('Open the link the viewer printed', 'This page opens only through the link `memtrace viewer` printed (it carries a one-time token).'),
          );
    }
    await next();
  });

  const runSearch = (query: string, type: string | undefined): { hits: SearchHit[]; problem: string | null } => {
    if (type !== undefined && !TYPES.has(type)) return { hits: [], problem: `unknown type ${type}` };
    const started = performance.now();
    try {
      const hits = search.search(query, { type: (type as ObservationType | 'summary' | undefined) ?? null, project: null });
      deps.access.record('viewer', { kind: 'search', durationMs: performance.now() - started, results: hits.length }, deps.clock.now());
      return { hits, problem: null };
    } catch (error) {
      if (error instanceof EmptyQueryError) return { hits: [], problem: `Nothing to search: ${error.message}.` };
      throw error;
    }
  };

  app.get('/', (c) => {
    const recent = timeline.timeline({ anchor: { recent: true }, before: RECENT })!;
    return html(c, 200, 'Memory', homeBody(recentSessions(deps.store, RECENT), recent.items));
  });
  app.get('/search', (c) => {
    const query = c.req.query('q') ?? '';
    const { hits, problem } = runSearch(query, c.req.query('type'));
    return html(c, 200, `Search: ${query}`, searchBody(query, hits, problem), { query, single: true });
  });
  app.get('/api/search', (c) => {
    const { hits, problem } = runSearch(c.req.query('q') ?? '', c.req.query('type'));
    return problem ? c.json({ error: problem }, 400) : c.json({ results: hits });
  });
  app.get('/session/:id', (c) => {
    const id = c.req.param('id');
    const result = timeline.timeline({ anchor: { sessionId: id }, before: 0, after: 0 });
    const session = deps.store.sessions.get(id);
    if (!result && !session) return html(c, 404, 'No such session', messageBody('No such session', `No memory of session ${id}.`), { single: true });
    deps.access.record('viewer', { kind: 'timeline' }, deps.clock.now());
    const body = sessionBody(session, id, result?.items ?? [], deps.store.summaries.forSession(id));
    return html(c, 200, `Session ${id}`, `${sessionSpendLine(deps.store.observerCalls.ofSession(id))}${body}`, { single: true });
  });
  app.get('/spend', (c) =>
    html(
      c,
      200,
      'Observer spend',
      spendBody(deps.store.observerCalls.byDay(SPEND_DAYS), deps.store.observerCalls.bySession(RECENT), deps.budgetTokens ?? null),
      {
        single: true,
      },
    ),
  );
  app.get('/observation/:id', (c) => {
    const raw = c.req.param('id');
    const observation = /^\d{1,15}$/.test(raw) ? deps.store.observations.get(Number(raw)) : null;
    if (!observation)
      return html(c, 404, 'No such observation', messageBody('No such observation', `No observation ${raw} (never stored, or forgotten).`), { single: true });
    deps.access.record('viewer', { kind: 'fetch', observations: 1, id: String(observation.id) }, deps.clock.now());
    const view = observationView(observation, deps.store.toolEvents.byQueueIds(observation.sourceMessageIds));
    return html(c, 200, observation.title, observationBody(view), { single: true });
  });
  // Browsers ask for it on every page; there is none.
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.notFound((c) => html(c, 404, 'Not found', messageBody('Not found', 'No such page.'), { single: true }));
  app.onError((error, c) => {
    deps.log.error('viewer request failed', { path: c.req.path, error: error.message });
    return html(c, 500, 'Error', messageBody('Something went wrong', 'The viewer could not read the memory; see the terminal that runs it.'), { single: true });
  });

  function html(c: Context, status: 200 | 401 | 404 | 500, title: string, body: string, options: { query?: string; single?: boolean } = {}) {
    const nonce = deps.nonce();
    c.header(
      'Content-Security-Policy',
      `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    );
    return c.html(page(title, body, { nonce, single: options.single ?? status !== 200, ...options }), status);
  }
  return app;
}
