import type { Migration } from '../migrate.js';

/**
 * What an import from another memory tool brought in (docs/memory.md#memory-you-already-have),
 * one row per source record, so a second run imports nothing twice. The key names the record in
 * its own database (`observation:<its session>:<its id>`) and holds no text; it stays when the
 * imported row is forgotten, so an import never brings forgotten memory back.
 */
export const IMPORT_LEDGER_SCHEMA: Migration = {
  id: '0903_import_ledger',
  up(db) {
    db.exec(`
      CREATE TABLE imported_records (
        source TEXT NOT NULL,
        source_key TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('observation', 'summary')),
        local_id INTEGER NOT NULL,
        imported_at INTEGER NOT NULL,
        PRIMARY KEY (source, source_key)
      ) WITHOUT ROWID;
    `);
  },
};
