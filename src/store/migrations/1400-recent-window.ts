import type { Migration } from '../migrate.js';
import { buildRecentIndex, dropRecentIndex, recentIndexWiderThanWindow } from './recent-index-build.js';

/**
 * The recent index keeps only the rows search ranks whole (2,500 observations and 250 summaries,
 * was 10,000 and 1,000): bm25 counts every phrase over the whole table it ranks, so a quarter of
 * the rows is a quarter of that count, and at 100k observations a question's p95 fell by a fifth
 * with the same best result for every bench question. An older, wider index is built again at
 * the window (bounded: under a second at a million observations) rather than thinned row by row
 * (a secure delete per row).
 */
export const RECENT_WINDOW_SCHEMA: Migration = {
  id: '1400_recent_window',
  up(db) {
    if (!recentIndexWiderThanWindow(db)) return;
    dropRecentIndex(db);
    buildRecentIndex(db);
  },
};
