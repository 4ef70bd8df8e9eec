import type { Migration } from '../migrate.js';

/** Which memtrace version last wrote the file, so an older one can say who owns it. */
export const STORE_META_SCHEMA: Migration = {
  id: '0002_store_meta',
  up(db) {
    db.exec('CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  },
};
