import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySearch } from '../../src/memory/index.js';
import { DEFAULT_HYBRID } from '../../src/memory/search-hybrid.js';
import { openStore, type Store } from '../../src/store/index.js';
import { addObservation } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

// The memory-scale bench's slowest question at 100k ("… even when other flags surround --via")
// took 70 ms: "even" is a rare word, so it went to the history pool as rare, but a query matches
// it as a prefix ("even" *), which begins "event", "events", "eventually" — tens of thousands of
// rows read whole. Commonness is now counted for the phrase as it is matched.
describe('a rare word that begins common words', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    temp = makeTempDir('memtrace-rare-prefix-');
    store = openStore(path.join(temp.dir, 'memtrace.db'));
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });

  it('counts as common, and the question is still answered by its rare word', () => {
    store.db.transaction(() => {
      for (let i = 0; i < 60; i += 1) addObservation(store, { title: `events arrive ${i}`, narrative: 'eventually every event arrives' });
    })();
    const rare = addObservation(store, { title: 'even the zeppelin', narrative: 'even a zeppelin' });
    const search = createMemorySearch(store.db, { ...DEFAULT_HYBRID, cap: 10, exactBudget: 20 });
    const hits = search.search('even zeppelin');
    expect(search.lastTrace()).toMatchObject({ path: 'hybrid', common: 1 });
    expect(hits[0]!.id).toBe(rare);
  });
});
