import type { Migration } from '../migrate.js';
import { buildRecentIndex } from './recent-index-build.js';

/**
 * Search at scale (docs/memory.md#search-at-scale): a second FTS5 table over the newest
 * observations and summaries only, with the main index's columns and tokenizer, so a question of
 * common words is ranked whole over recent memory at the cost of a small store. Filled here from
 * the newest rows, then kept by the store's inserts; deletion triggers remove a forgotten row from
 * it as from the main index.
 */
export const SEARCH_RECENT_SCHEMA: Migration = {
  id: '1200_search_recent',
  up: buildRecentIndex,
};
