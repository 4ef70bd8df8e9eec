/**
 * Regression: storing an observation whose narrative was one long run of letters (300 KB of
 * `n`, as the disk-full test stores) never returned. The search index split camelCase words with
 * one regular expression that backtracked quadratically over such a run, inside the turn's
 * transaction, blocking the worker's event loop. Words are now cut out linearly and only short
 * ones are split.
 */
import { describe, expect, it } from 'vitest';
import { createMemorySearch } from '../../src/memory/index.js';
import { expandedTerms, openStore } from '../../src/store/index.js';
import { addObservation } from '../support/memory-fixtures.js';

describe('indexing a very long word', () => {
  it('stores and finds an observation whose narrative is one 1 MB word', () => {
    const store = openStore(':memory:');
    const id = addObservation(store, { title: 'A huge blob', narrative: 'n'.repeat(1024 * 1024), facts: [`${'x'.repeat(200_000)}Y`] });
    expect(createMemorySearch(store.db).search('huge blob')[0]!.id).toBe(id);
    // A search with such a word is just as quick to refuse or run.
    expect(createMemorySearch(store.db).search(`${'q'.repeat(500_000)}Z`)).toEqual([]);
    store.close();
  });

  it('still splits the identifiers around it', () => {
    expect(expandedTerms([`${'a'.repeat(100_000)} parseCommandArgs ${'B'.repeat(100_000)}c`])).toEqual(['parse command args']);
  });
});
