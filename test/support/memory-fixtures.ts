/**
 * Observations and summaries stored through the real store API (so the search index is written
 * the way the worker writes it), with defaults a test overrides field by field.
 */
import type { ParsedObservation, ParsedSummary } from '../../src/vocabulary/observation.js';
import type { Store } from '../../src/store/index.js';
import { createProjectResolver } from '../../src/worker/project-of.js';

export const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

export interface ObservationSeed extends Partial<ParsedObservation> {
  sessionId?: string;
  project?: string | null;
  createdAt?: number;
  sourceMessageIds?: number[];
}

/** An observation as the observer's reply parses to, empty but for what `fields` sets. */
export function parsedObservation(fields: Partial<ParsedObservation> = {}): ParsedObservation {
  return {
    type: 'discovery',
    title: 'An observation',
    subtitle: '',
    narrative: '',
    facts: [],
    concepts: [],
    files_read: [],
    files_modified: [],
    ...fields,
  };
}

export function addObservation(store: Store, seed: ObservationSeed = {}): number {
  const { sessionId = 'session-a', project = '/work/shop', createdAt = T0, sourceMessageIds = [], ...fields } = seed;
  return store.observations.insert(parsedObservation(fields), {
    sessionId,
    project,
    sourceMessageIds,
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    promptVersion: 'test',
    discoveryTokens: null,
    createdAt,
  });
}

export function addSummary(
  store: Store,
  seed: Partial<ParsedSummary> & { sessionId?: string; project?: string | null; createdAt?: number; sourceMessageIds?: number[] } = {},
): number {
  const { sessionId = 'session-a', project = '/work/shop', createdAt = T0, sourceMessageIds = [], ...fields } = seed;
  const summary: ParsedSummary = { request: 'A request', investigated: '', learned: '', completed: '', next_steps: '', notes: '', ...fields };
  return store.summaries.insert(summary, {
    sessionId,
    project,
    sourceMessageIds,
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    promptVersion: 'test',
    createdAt,
  });
}

/** Three sessions of a shop project and one of another project: enough to rank, filter and page. */
export function seedShop(store: Store): Record<string, number> {
  store.sessions.init({ sessionId: 'session-a', project: '/work/shop', nowMs: T0 - 1000, prompt: 'fix the checkout discount' });
  store.sessions.init({ sessionId: 'session-b', project: '/work/shop', nowMs: T0 + 86_400_000, prompt: 'payments' });
  store.sessions.init({ sessionId: 'session-c', project: '/work/blog', nowMs: T0 + 2 * 86_400_000, prompt: 'blog' });
  return store.db.transaction(() => ({
    discount: addObservation(store, {
      type: 'bugfix',
      title: 'Checkout total ignored the discount code',
      subtitle: 'applyDiscount ran after tax',
      narrative: 'computeTotal added VAT before the coupon came off; the call moved so the discount is applied first.',
      facts: ['computeTotal calls applyDiscount before tax'],
      concepts: ['checkout', 'pricing'],
      files_modified: ['src/cart/compute-total.ts'],
      createdAt: T0,
    }),
    webhook: addObservation(store, {
      type: 'discovery',
      title: 'Refunds arrive through the Stripe webhook',
      narrative: 'Refund events are handled in the webhook handler, not the API route.',
      files_read: ['src/webhooks/stripe-events.ts'],
      sessionId: 'session-b',
      createdAt: T0 + 86_400_000,
    }),
    retry: addObservation(store, {
      type: 'decision',
      title: 'Payment retries use exponential backoff',
      narrative: 'A failed capture is retried after 5 s, doubling to 5 min.',
      concepts: ['payments', 'retry'],
      sessionId: 'session-b',
      createdAt: T0 + 86_400_000 + 60_000,
    }),
    blog: addObservation(store, {
      type: 'feature',
      title: 'Blog posts get an RSS feed',
      narrative: 'feed.xml is generated at build time.',
      files_modified: ['src/feed/rss-feed.ts'],
      sessionId: 'session-c',
      project: '/work/blog',
      createdAt: T0 + 2 * 86_400_000,
    }),
    summary: addSummary(store, {
      request: 'fix the checkout discount',
      learned: 'the order of discount and tax matters',
      completed: 'applyDiscount now runs first',
      sessionId: 'session-a',
      createdAt: T0 + 3_600_000,
    }),
  }))();
}

/** The title `rememberProjectOf` stores. */
export const REMEMBERED_TITLE = 'The build needs Node 20';

/**
 * An earlier session's observation for the project a directory belongs to, keyed as the worker
 * keys it (its repository, else the directory): a session starting there has context to print.
 */
export function rememberProjectOf(store: Store, cwd: string): number {
  return addObservation(store, { project: createProjectResolver()(cwd), title: REMEMBERED_TITLE, createdAt: Date.now() });
}
