import path from 'node:path';
import Database from 'better-sqlite3';
import { touchPrivateFile } from '../../data-dir/private-files.js';
import { openTileSums, queryTilesDirect, type StoredEvent, type TileSums } from '../dashboards/tile-store.js';
import { localReviewSource } from '../review/local-review-source.js';
import { REVIEW_SUMS_TILE } from '../review/review-sums-tile.js';
import type { CollectedEvent } from './collected-event.js';
import type { FleetStore } from './fleet-store.js';
import { storedProperties } from './stored-properties.js';

export interface CollectorStore {
  db: Database.Database;
  /** Stores new events in one transaction; a uuid already stored is kept once. Returns how many were new. */
  insert(events: Iterable<CollectedEvent>): number;
  count(): number;
  /** The tiles' sums over this store, kept as events are stored. */
  tiles: TileSums;
  /** The release review's per-install, per-version sums, kept the same way (separate, so `tiles.read()` stays the drawn tiles). */
  review: TileSums;
  close(): void;
}

const SCHEMA_VERSION = 1;

/**
 * The local collector's own SQLite file (WAL). `seq` orders rows by arrival so the tile sums can
 * be brought up to date from where they stopped; `uuid` is unique, so a re-sent event is ignored.
 */
export function openCollectorStore(file: string): CollectorStore {
  // 0600 before SQLite creates it: its -wal and -shm files take the database file's mode.
  if (file !== ':memory:') touchPrivateFile(path.resolve(file));
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  let tiles: TileSums;
  let review: TileSums;
  try {
    tiles = openTileSums(db);
    review = openTileSums(db, [REVIEW_SUMS_TILE]);
  } catch (error) {
    db.close();
    throw error;
  }
  const insertOne = db.prepare('INSERT OR IGNORE INTO events (uuid, event, distinct_id, timestamp, properties) VALUES (?, ?, ?, ?, ?)');
  const lastSeq = db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM events');
  // The tile sums move in the same transaction as the rows, so an event counts exactly once.
  const insertMany = db.transaction((events: Iterable<CollectedEvent>) => {
    const fromSeq = lastSeq.get()?.seq ?? 0;
    const stored: StoredEvent[] = [];
    for (const e of events) {
      const timestamp = Math.trunc(e.timestamp);
      const { json, properties } = storedProperties(e.properties);
      const result = insertOne.run(e.uuid, e.event, e.distinctId, timestamp, json);
      if (result.changes === 1) stored.push({ ...e, properties, timestamp, seq: Number(result.lastInsertRowid) });
    }
    tiles.addStored(stored, fromSeq);
    review.addStored(stored, fromSeq);
    return stored.length;
  });
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM events');
  return {
    db,
    insert: (events) => {
      try {
        return insertMany.immediate(events);
      } catch (error) {
        tiles.forget();
        review.forget();
        throw error;
      }
    },
    count: () => count.get()?.n ?? 0,
    tiles,
    review,
    close: () => db.close(),
  };
}

function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === SCHEMA_VERSION) return;
  if (version > SCHEMA_VERSION) throw new Error(`collector store schema v${version} is newer than this memtrace (v${SCHEMA_VERSION})`);
  db.transaction(() => {
    const old = db
      .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('events')")
      .all()
      .map((c) => c.name);
    // Stores from before v1 had no seq column and kept properties as JSONB; carry their rows over.
    if (old.length > 0) db.exec('ALTER TABLE events RENAME TO events_v0; DROP INDEX IF EXISTS events_by_name_time');
    db.exec(`
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL UNIQUE,
        event TEXT NOT NULL,
        distinct_id TEXT NOT NULL,
        timestamp INTEGER NOT NULL,
        properties TEXT NOT NULL
      );
      CREATE INDEX events_event_time ON events (event, timestamp);
    `);
    if (old.length > 0) {
      db.exec(
        'INSERT OR IGNORE INTO events (uuid, event, distinct_id, timestamp, properties) SELECT uuid, event, distinct_id, timestamp, json(properties) FROM events_v0 ORDER BY rowid; DROP TABLE events_v0',
      );
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/** The SQLite store behind the collector-store interface every engine shares (fleet-store.ts). */
export function sqliteFleetStore(store: CollectorStore, where: string): FleetStore {
  return {
    where,
    insert: async (events) => {
      const stored = store.insert(events);
      return { stored, duplicates: events.length - stored };
    },
    count: async () => store.count(),
    readTiles: async () => store.tiles.read(),
    queryTilesPlain: async () => queryTilesDirect(store.db),
    reviewSource: () => localReviewSource(store.db, store.review, where),
    close: async () => store.close(),
  };
}
