import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySearch, EmptyQueryError } from '../../src/memory/index.js';
import { MIGRATIONS, openDatabase, openStore, type Store } from '../../src/store/index.js';
import { addObservation, addSummary, seedShop, T0 } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('memory search', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let ids: Record<string, number>;
  beforeEach(() => {
    temp = makeTempDir('memtrace-search-');
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    ids = seedShop(store);
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });
  const search = (text: string, filters = {}) => createMemorySearch(store.db).search(text, filters);

  it('finds an observation asked about in other words than its title', () => {
    const hits = search('why was VAT charged on the full price before the coupon?');
    expect(hits[0]).toMatchObject({
      id: ids.discount,
      kind: 'observation',
      type: 'bugfix',
      title: 'Checkout total ignored the discount code',
      session_id: 'session-a',
      project: '/work/shop',
    });
  });

  it('matches a module by its file name and an identifier by its camelCase parts', () => {
    expect(search('stripe-events.ts')[0]!.id).toBe(ids.webhook);
    expect(search('compute total')[0]!.id).toBe(ids.discount);
    expect(search('rss feed')[0]!.id).toBe(ids.blog);
  });

  it('answers the result shape, best first, with a higher score for a better match and a snippet around the match', () => {
    const hits = search('discount');
    expect(hits.map((h) => h.kind)).toContain('summary');
    for (const h of hits) expect(Object.keys(h)).toEqual(['id', 'kind', 'type', 'title', 'snippet', 'session_id', 'project', 'created_at', 'score', 'origin']);
    // Made on this machine: no origin (a shared project's pulled record names its member).
    for (const h of hits) expect(h.origin).toBeNull();
    const scores = hits.map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(hits.find((h) => h.kind === 'summary')).toMatchObject({
      id: ids.summary,
      type: 'summary',
      title: 'fix the checkout discount',
      created_at: new Date(T0 + 3_600_000).toISOString(),
    });
    expect(hits.find((h) => h.id === ids.discount && h.kind === 'observation')!.snippet).toContain('coupon came off');
  });

  it('filters by project exactly (a trailing / ignored), by type, and by an inclusive since', () => {
    expect(search('feed', { project: '/work/blog/' }).map((h) => h.id)).toEqual([ids.blog]);
    expect(search('feed', { project: '/work/blo' })).toEqual([]);
    expect(search('payments retries refunds', { type: 'decision' }).map((h) => h.id)).toEqual([ids.retry]);
    expect(search('discount', { type: 'summary' }).map((h) => h.kind)).toEqual(['summary']);
    expect(search('payment retries refunds webhook', { sinceMs: T0 + 86_400_000 + 60_000 }).map((h) => h.id)).toEqual([ids.retry]);
  });

  it('returns at most limit results', () => {
    for (let i = 0; i < 30; i += 1) addObservation(store, { title: `Widget note ${i}`, narrative: 'widget' });
    expect(search('widget')).toHaveLength(10);
    expect(search('widget', { limit: 25 })).toHaveLength(25);
  });

  it('throws EmptyQueryError for text with no words', () => {
    expect(() => search('"()*')).toThrow(EmptyQueryError);
  });

  it('keeps the index in step with the rows: a rolled-back insert leaves no entry, a deleted row is gone', () => {
    expect(() =>
      store.db.transaction(() => {
        addObservation(store, { title: 'Quokka migration plan' });
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    expect(search('quokka')).toEqual([]);
    expect(store.db.prepare("SELECT count(*) AS n FROM memory_fts WHERE memory_fts MATCH 'quokka'").get()).toEqual({ n: 0 });
    store.db.prepare('DELETE FROM observations WHERE id = ?').run(ids.webhook);
    store.db.prepare('DELETE FROM summaries WHERE id = ?').run(ids.summary);
    expect(search('stripe refunds webhook')).toEqual([]);
    expect(search('discount').map((h) => h.kind)).not.toContain('summary');
  });
});

describe('the search index on upgrade', () => {
  it('is built for the observations and summaries an older memtrace wrote', () => {
    const temp = makeTempDir('memtrace-search-upgrade-');
    const file = path.join(temp.dir, 'memtrace.db');
    try {
      const before = MIGRATIONS.slice(
        0,
        MIGRATIONS.findIndex((m) => m.id === '0500_memory_search'),
      );
      const old = { db: openDatabase(file, { migrations: before }) };
      // An older memtrace wrote these rows: no index table existed, so insert them as it did.
      old.db
        .prepare(`INSERT INTO observations (session_id, project, type, title, subtitle, narrative, facts, concepts, files_read, files_modified, source_message_ids, provider, prompt_version, created_at)
        VALUES ('s', '/p', 'bugfix', 'Legacy lockfile race', '', 'two workers raced for the lock', '[]', '[]', '[]', '["src/data-dir/worker-lock.ts"]', '[]', 'replay', 'v0', ?)`)
        .run(T0);
      old.db
        .prepare(`INSERT INTO summaries (session_id, project, request, investigated, learned, completed, next_steps, notes, source_message_ids, provider, prompt_version, created_at)
        VALUES ('s', '/p', 'make the worker single', '', 'an OS lock is released on crash', '', '', '', '[]', 'replay', 'v0', ?)`)
        .run(T0);
      old.db.close();
      const upgraded = openStore(file);
      const search = createMemorySearch(upgraded.db);
      expect(
        search
          .search('worker lock')
          .map((h) => h.kind)
          .sort(),
      ).toEqual(['observation', 'summary']);
      expect(search.search('crash released')[0]!.kind).toBe('summary');
      addObservation(upgraded, { title: 'New after upgrade' });
      expect(search.search('upgrade')).toHaveLength(1);
      upgraded.close();
    } finally {
      temp.cleanup();
    }
  });
});

describe('searching a store with many observations', () => {
  it('pages through matches beyond the limit in rank order', () => {
    const store = openStore(':memory:');
    store.db.transaction(() => {
      for (let i = 0; i < 200; i += 1) addSummary(store, { request: `task ${i}`, learned: i % 2 === 0 ? 'lanterns and more lanterns' : 'a lantern' });
    })();
    const hits = createMemorySearch(store.db).search('lantern', { limit: 200 });
    expect(hits).toHaveLength(200);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[199]!.score);
    store.close();
  });
});
