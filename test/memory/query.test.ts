import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { buildSearchQuery } from '../../src/memory/query.js';

/** The query runs against a real FTS5 table with the index's tokenizer: no text may make it fail. */
const fts = new Database(':memory:');
fts.exec("CREATE VIRTUAL TABLE t USING fts5(a, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')");
fts.prepare('INSERT INTO t (rowid, a) VALUES (1, ?)').run('the parser parsed AND parsing NEAR the observer loop');
const run = (text: string) => {
  const q = buildSearchQuery(text);
  if (!q.ok) throw new Error(q.reason);
  return (fts.prepare('SELECT rowid FROM t WHERE t MATCH ?').all(q.match) as Array<{ rowid: number }>).map((r) => r.rowid);
};

describe('buildSearchQuery', () => {
  it.each([
    'AND',
    'OR',
    'NOT',
    'NEAR(',
    'near(parser loop, 2)',
    'parser AND',
    '"unbalanced',
    'parse*',
    'a:b',
    '(observer',
    'observer)',
    '^loop',
    'col:umn',
    '{a b}',
    'x + y - z',
    "it's",
  ])('searches %j as words, never as FTS5 syntax', (text) => {
    expect(() => run(text)).not.toThrow();
  });

  it('finds FTS5 operator words as the words they are', () => {
    expect(run('AND')).toEqual([1]);
    expect(run('NEAR(')).toEqual([1]);
  });

  it.each(['', '   ', '"', '(', '*', ')', '"()*:^', '—', '💥'])('refuses %j: no word to search for', (text) => {
    const q = buildSearchQuery(text);
    expect(q.ok).toBe(false);
    if (!q.ok) expect(q.reason).toBe('the query has no words to search for (letters or digits)');
  });

  it('drops common words when others are left, and keeps them when they are all there is', () => {
    expect(buildSearchQuery('how did we fix the parser?')).toMatchObject({ ok: true, words: ['fix', 'parser'] });
    expect(buildSearchQuery('what is this')).toMatchObject({ ok: true, words: ['what', 'is', 'this'] });
  });

  it('also searches the parts of a camelCase identifier', () => {
    expect(buildSearchQuery('observerLoop')).toMatchObject({ ok: true, words: ['observerloop', 'observer', 'loop'] });
    expect(run('observerLoop')).toEqual([1]);
  });

  it('matches other forms of a word (stemming and prefixes)', () => {
    expect(run('parses')).toEqual([1]);
    expect(run('observ')).toEqual([1]);
  });

  it('is bounded however long the text', () => {
    const q = buildSearchQuery(Array.from({ length: 500 }, (_, i) => `word${i}`).join(' '));
    expect(q.ok && q.words.length).toBe(32);
  });
});
