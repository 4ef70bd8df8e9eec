import type { Migration } from '../migrate.js';
import { SEARCH_TABLE } from '../search-index.js';
import { reindexEverything } from '../search-reindex.js';

/**
 * Search in every script (docs/memory.md#every-script). The index is made again, because its
 * tokenizer changes: combining marks (Unicode category M) become part of a word, so a Thai, Lao,
 * Khmer, Myanmar or Devanagari word is no longer cut apart at each vowel sign (`categories`; the
 * default is 'L* N* Co'). Every row is indexed again with the text spaceless-scripts.ts makes of
 * Chinese, Japanese, Korean and Thai runs. Latin text gives the same tokens as before, so English
 * ranking does not move. The deletion triggers of step 0500 name the table and keep working.
 */
export const SEARCH_EVERY_SCRIPT_SCHEMA: Migration = {
  id: '0900_search_every_script',
  up(db) {
    db.exec(`
      DROP TABLE IF EXISTS ${SEARCH_TABLE};
      CREATE VIRTUAL TABLE ${SEARCH_TABLE} USING fts5(
        title, subtitle, narrative, facts, concepts, files, terms,
        content = '', contentless_delete = 1,
        tokenize = "porter unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
      );
      INSERT INTO ${SEARCH_TABLE} (${SEARCH_TABLE}, rank) VALUES ('secure-delete', 1);
    `);
    reindexEverything(db);
  },
};
