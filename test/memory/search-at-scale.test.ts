import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySearch } from '../../src/memory/index.js';
import { idf } from '../../src/memory/bm25.js';
import { buildSearchQuery } from '../../src/memory/query.js';
import { createSearchCandidates } from '../../src/memory/search-candidates.js';
import { DEFAULT_HYBRID, type HybridConfig } from '../../src/memory/search-hybrid.js';
import { MIGRATIONS, openDatabase, openStore, SEARCH_RECENT_TABLE, type Store } from '../../src/store/index.js';
import { RECENT_OBSERVATIONS, RECENT_SUMMARIES } from '../../src/store/search-index.js';
import { readVarints } from '../../src/store/search-stats.js';
import { addObservation, addSummary, T0 } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const NONE = { project: null, type: null, sinceMs: null };
const TOPICS = ['worker', 'hook', 'queue', 'search', 'viewer', 'export', 'retention', 'context'];
const VERBS = ['restarts', 'spools', 'ranks', 'writes', 'reads', 'prunes', 'merges', 'answers'];

/** A few hundred observations of a small vocabulary (every word common) and a few summaries, some in Japanese. */
function seedVocabulary(store: Store, count = 240): void {
  store.db.transaction(() => {
    for (let i = 0; i < count; i += 1) {
      const topic = TOPICS[i % TOPICS.length]!;
      const verb = VERBS[(i * 3) % VERBS.length]!;
      addObservation(store, {
        title: `The ${topic} ${verb} ${i % 5 === 0 ? 'quickly' : 'again'}`,
        narrative: `${TOPICS[(i + 1) % TOPICS.length]} and ${topic}: it ${verb} while the ${TOPICS[(i + 3) % TOPICS.length]} waits. ${i % 7 === 0 ? 'ワーカーが再起動した' : ''}`,
        facts: i % 4 === 0 ? [`${verb} the ${topic} parseCommandArgs`] : [],
        files_modified: i % 3 === 0 ? [`src/${topic}/${verb}.ts`] : [],
        project: i % 2 === 0 ? '/work/a' : '/work/b',
        createdAt: T0 + i * 60_000,
      });
      if (i % 40 === 0) addSummary(store, { request: `make the ${topic} faster`, learned: `the ${topic} ${verb} twice`, createdAt: T0 + i * 60_000 });
    }
  })();
}

const QUESTIONS = [
  'why does the worker restart when the queue waits?',
  'hook spools',
  'search ranks quickly',
  'parse command args',
  'ワーカー 再起動',
  'export writes context',
];

describe('search at scale', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    temp = makeTempDir('memtrace-search-scale-');
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    seedVocabulary(store);
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });
  /** FTS5's bm25 over the whole query and the whole index: the engine before issue 36. */
  const wholeQuery = (text: string, limit = 10) => {
    const query = buildSearchQuery(text);
    if (!query.ok) throw new Error(query.reason);
    return createSearchCandidates(store.db).rank(query.match, NONE, limit);
  };

  it('ranks a store where no word is common exactly as FTS5 ranks the whole query', () => {
    const search = createMemorySearch(store.db);
    for (const q of QUESTIONS) {
      const hits = search.search(q);
      expect(search.lastTrace()?.path).toBe('exact');
      expect(hits.map((h) => (h.kind === 'observation' ? h.id : -h.id))).toEqual(wholeQuery(q).map((r) => r.rowid));
    }
  });

  it('scores the candidates it ranks itself with the number FTS5 gives them', () => {
    // Every phrase scored outside FTS5 with its exact count, every row a candidate (the store is inside the recent window).
    const search = createMemorySearch(store.db, { ...DEFAULT_HYBRID, cap: 1e9, exactBudget: 0, recent: 1000 });
    for (const q of QUESTIONS) {
      const hits = search.search(q, { limit: 20 });
      expect(search.lastTrace()).toMatchObject({ path: 'hybrid' });
      const expected = wholeQuery(q, 20);
      expect(hits.map((h) => (h.kind === 'observation' ? h.id : -h.id))).toEqual(expected.map((r) => r.rowid));
      for (const [i, h] of hits.entries()) expect(h.score).toBeCloseTo(Number((-expected[i]!.rank).toPrecision(4)), 6);
    }
  });

  it('applies the filters to both pools when it ranks candidates itself', () => {
    const search = createMemorySearch(store.db, { ...DEFAULT_HYBRID, cap: 5, exactBudget: 20 });
    const hits = search.search('worker restarts', { project: '/work/b', limit: 50 });
    expect(search.lastTrace()?.path).toBe('hybrid');
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.project === '/work/b' && h.kind === 'observation')).toBe(true);
    expect(search.search('faster', { type: 'summary' }).every((h) => h.kind === 'summary')).toBe(true);
  });

  it('ranks recent memory whole when every word of the question is common', () => {
    const best = addObservation(store, {
      title: 'Worker restarts the hook queue',
      narrative: 'the worker restarts; the hook queue waits',
      createdAt: T0 + 10_000_000,
    });
    const search = createMemorySearch(store.db, { ...DEFAULT_HYBRID, cap: 5, exactBudget: 20 });
    const hits = search.search('worker restarts hook queue');
    expect(search.lastTrace()).toMatchObject({ path: 'hybrid', common: 4 });
    expect(hits[0]!.id).toBe(best);
    expect(hits[0]!.id).toBe(wholeQuery('worker restarts hook queue')[0]!.rowid);
  });

  it('finds a memory that left the recent window by its rarer words', () => {
    const old = addObservation(store, { title: 'The worker met a zeppelin', narrative: 'a zeppelin and a worker', createdAt: T0 - 1 });
    // As if newer rows had pushed it out of the window.
    store.db.prepare(`DELETE FROM ${SEARCH_RECENT_TABLE} WHERE rowid = ?`).run(old);
    const search = createMemorySearch(store.db, { ...DEFAULT_HYBRID, cap: 5, exactBudget: 20 });
    const hits = search.search('zeppelin worker');
    expect(search.lastTrace()).toMatchObject({ path: 'hybrid', common: 1 });
    expect(hits[0]!.id).toBe(old);
  });

  it('lets FTS5 rank a store no larger than the exact budget, however common its words', () => {
    const search = createMemorySearch(store.db, { ...DEFAULT_HYBRID, cap: 5 });
    const hits = search.search('worker restarts hook queue');
    expect(search.lastTrace()).toMatchObject({ path: 'exact', common: 0 });
    expect(hits.map((h) => (h.kind === 'observation' ? h.id : -h.id))).toEqual(wholeQuery('worker restarts hook queue').map((r) => r.rowid));
  });

  it('answers nothing rather than failing when no row holds a word', () => {
    const search = createMemorySearch(store.db, { ...DEFAULT_HYBRID, cap: 5, exactBudget: 20 });
    expect(search.search('xylophone')).toEqual([]);
    expect(search.search('xylophone worker').length).toBeGreaterThan(0);
  });
});

describe('the recent index', () => {
  it('keeps only the newest observations and summaries', () => {
    const store = openStore(':memory:');
    const recent = () => store.db.prepare(`SELECT id FROM ${SEARCH_RECENT_TABLE}_docsize ORDER BY id`).pluck().all();
    const first = addObservation(store, { title: 'first' });
    const summary = addSummary(store, { request: 'first summary' });
    expect(recent()).toEqual([-summary, first]);
    const later = store.observations.insert(
      { type: 'other', title: 'far later', subtitle: '', narrative: '', facts: [], concepts: [], files_read: [], files_modified: [] },
      { sessionId: 's', project: null, sourceMessageIds: [], provider: 'replay', model: null, promptVersion: 't', discoveryTokens: null, createdAt: T0 },
      [],
      first + RECENT_OBSERVATIONS + 1,
    );
    expect(recent()).toEqual([-summary, later]);
    // An imported row keeps its old id: it is not among the newest, so it stays out.
    addObservation(store, { title: 'imported' });
    const imported = store.observations.insert(
      { type: 'other', title: 'imported old', subtitle: '', narrative: '', facts: [], concepts: [], files_read: [], files_modified: [] },
      { sessionId: 's', project: null, sourceMessageIds: [], provider: 'replay', model: null, promptVersion: 't', discoveryTokens: null, createdAt: T0 },
      [],
      first + 1,
    );
    expect(recent()).not.toContain(imported);
    const laterSummary = store.summaries.insert(
      { request: 'later summary', investigated: '', learned: '', completed: '', next_steps: '', notes: '' },
      { sessionId: 's', project: null, sourceMessageIds: [], provider: 'replay', model: null, promptVersion: 't', createdAt: T0 },
      [],
      summary + RECENT_SUMMARIES,
    );
    expect(recent()).not.toContain(-summary);
    expect(recent()).toContain(-laterSummary);
    store.close();
  });

  it('loses a deleted row with the main index', () => {
    const store = openStore(':memory:');
    const id = addObservation(store, { title: 'to be forgotten' });
    store.db.prepare('DELETE FROM observations WHERE id = ?').run(id);
    expect(store.db.prepare(`SELECT count(*) FROM ${SEARCH_RECENT_TABLE}_docsize`).pluck().get()).toBe(0);
    store.close();
  });

  it('is built on upgrade from the newest rows an older memtrace wrote', () => {
    const temp = makeTempDir('memtrace-search-recent-upgrade-');
    const file = path.join(temp.dir, 'memtrace.db');
    try {
      const before = MIGRATIONS.slice(
        0,
        MIGRATIONS.findIndex((m) => m.id === '1200_search_recent'),
      );
      const old = openStore(file, { migrations: before });
      seedVocabulary(old, 40);
      old.close();
      const upgraded = openDatabase(file);
      expect(upgraded.prepare(`SELECT count(*) FROM ${SEARCH_RECENT_TABLE}_docsize`).pluck().get()).toBe(41);
      upgraded.close();
      const store = openStore(file);
      const search = createMemorySearch(store.db, { ...DEFAULT_HYBRID, cap: 2, exactBudget: 8 });
      expect(search.search('worker restarts').length).toBeGreaterThan(0);
      expect(search.lastTrace()?.path).toBe('hybrid');
      store.close();
    } finally {
      temp.cleanup();
    }
  });
  it('is cut to its window on upgrade when an older memtrace kept a wider one', () => {
    const temp = makeTempDir('memtrace-search-recent-window-');
    const file = path.join(temp.dir, 'memtrace.db');
    try {
      const old = openStore(file, { migrations: MIGRATIONS.filter((m) => m.id !== '1400_recent_window') });
      const first = addObservation(old, { title: 'first worker restarts' });
      const newer = first + RECENT_OBSERVATIONS + 1;
      old.observations.insert(
        { type: 'other', title: 'newer worker restarts', subtitle: '', narrative: '', facts: [], concepts: [], files_read: [], files_modified: [] },
        { sessionId: 's', project: null, sourceMessageIds: [], provider: 'replay', model: null, promptVersion: 't', discoveryTokens: null, createdAt: T0 },
        [],
        newer,
      );
      // What an older memtrace's wider window still held: more rows than today's window, long gone from the table.
      const stale = old.db.prepare(`INSERT INTO ${SEARCH_RECENT_TABLE} (rowid, title) VALUES (?, ?)`);
      old.db.transaction(() => {
        for (let i = 1; i < RECENT_OBSERVATIONS + 1; i += 1) stale.run(first + i, `stale worker restarts ${i}`);
      })();
      old.close();
      const store = openStore(file);
      const recent = () => store.db.prepare(`SELECT id FROM ${SEARCH_RECENT_TABLE}_docsize ORDER BY id`).pluck().all();
      // Built again from the newest rows of the tables.
      expect(recent()).toEqual([first, newer]);
      // The rebuilt index still drops a forgotten row with the main one.
      store.db.prepare('DELETE FROM observations WHERE id = ?').run(first);
      expect(recent()).toEqual([newer]);
      store.close();
    } finally {
      temp.cleanup();
    }
  });
});

describe('bm25 arithmetic', () => {
  it('reads SQLite varints as FTS5 writes them', () => {
    expect(readVarints(Uint8Array.from([0x05, 0x81, 0x00, 0x8d, 0x34]))).toEqual([5, 128, 1716]);
  });

  it('never gives a phrase in most rows a weight of zero or less', () => {
    expect(idf(100, 99)).toBe(1e-6);
    expect(idf(100, 1)).toBeCloseTo(Math.log(99.5 / 1.5), 12);
  });

  it('keeps the default pools and bounds sane', () => {
    const c: HybridConfig = DEFAULT_HYBRID;
    expect(c.maxPool).toBeGreaterThanOrEqual(c.pool);
    expect(c.exactBudget).toBeGreaterThanOrEqual(c.cap);
  });
});
