import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CORE_MIGRATIONS, runMigrations, type Migration } from './migrations.js';

export interface OpenOptions {
  extraMigrations?: readonly Migration[];
  /** Turn off SQLite's inline checkpoints; the caller must run startCheckpointer. */
  backgroundCheckpoints?: boolean;
}

/** Opens (creating if needed) the one SQLite file with WAL and the current schema. */
export function openDatabase(file: string, options: OpenOptions = {}): Database.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // The worker checkpoints from a background timer so no request pays for it (see checkpointer.ts).
    if (options.backgroundCheckpoints) db.pragma('wal_autocheckpoint = 0');
    runMigrations(db, [...CORE_MIGRATIONS, ...(options.extraMigrations ?? [])]);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Crash recovery: a message claimed when the process died was never confirmed, so it is pending again. */
export function recoverClaimed(db: Database.Database): number {
  return db.prepare("UPDATE queue SET status = 'pending', claimed_at = NULL WHERE status = 'claimed'").run().changes;
}
