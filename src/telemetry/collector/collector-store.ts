import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export interface CollectedEvent {
  uuid: string;
  event: string;
  distinctId: string;
  timestamp: number;
  properties: Record<string, unknown>;
}

/** The local collector's own SQLite file: one row per event uuid. */
export function openCollectorStore(file: string) {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      uuid TEXT PRIMARY KEY,
      event TEXT NOT NULL,
      distinct_id TEXT NOT NULL,
      timestamp INTEGER NOT NULL,
      properties BLOB NOT NULL
    );
    CREATE INDEX IF NOT EXISTS events_by_name_time ON events (event, timestamp);
  `);
  // JSONB: tiles read properties without re-parsing JSON text for every measure.
  const insert = db.prepare('INSERT OR IGNORE INTO events (uuid, event, distinct_id, timestamp, properties) VALUES (?, ?, ?, ?, jsonb(?))');
  const insertMany = db.transaction((events: readonly CollectedEvent[]) => {
    let stored = 0;
    for (const e of events) stored += insert.run(e.uuid, e.event, e.distinctId, e.timestamp, JSON.stringify(e.properties)).changes;
    return stored;
  });
  const count = db.prepare('SELECT count(*) AS n FROM events');
  return {
    db,
    /** Duplicates by uuid are kept once; returns how many were new. */
    insert: (events: readonly CollectedEvent[]) => insertMany(events),
    count: () => (count.get() as { n: number }).n,
    close: () => db.close(),
  };
}

export type CollectorStore = ReturnType<typeof openCollectorStore>;
