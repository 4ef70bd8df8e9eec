import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { touchPrivateFile } from '../data-dir/private-files.js';
import { APP_VERSION } from '../version.js';
import { checkSchema, runMigrations, StoreTooNewError, type Migration } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { sqliteDriver } from './sqlite-driver.js';

/** How long a write waits for another connection's write lock before SQLITE_BUSY (a hook's waits less: brief-transaction.ts). */
export const STORE_BUSY_WAIT_MS = 5000;

export interface OpenOptions {
  /** The schema steps; every caller but a test uses the full list. */
  migrations?: readonly Migration[];
  /** Turn off SQLite's inline checkpoints; the caller must run startCheckpointer. */
  backgroundCheckpoints?: boolean;
}

/**
 * Opens (creating if needed) the one SQLite file with WAL and the current schema. A file from a
 * newer memtrace is refused before anything is written to it (StoreTooNewError).
 */
export function openDatabase(file: string, options: OpenOptions = {}): Database.Database {
  const migrations = options.migrations ?? MIGRATIONS;
  if (file !== ':memory:') {
    if (fs.existsSync(file)) refuseIfNewer(file, migrations);
    // SQLite gives the -wal and -shm files the database file's mode, so 0600 here covers all three.
    touchPrivateFile(file);
  }
  const db = new (sqliteDriver())(file);
  try {
    // First: another process may be opening the same file this moment (a new store's WAL switch
    // and migrations take its write lock), and every step below waits for it rather than failing.
    db.pragma(`busy_timeout = ${STORE_BUSY_WAIT_MS}`);
    // Space retention frees goes back to the file system (docs/secrets-and-retention.md#retention). A new file gets it here,
    // before WAL mode writes its first page; an older file is converted once by the worker
    // (enableIncrementalVacuum), since that needs a VACUUM.
    if (Number(db.pragma('page_count', { simple: true })) === 0) db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // A deleted row's bytes (a confirmed raw payload, forgotten memory) are zeroed, not left in
    // free space where they stay readable in the file: what `memtrace forget` promises.
    db.pragma('secure_delete = ON');
    // The worker checkpoints from a background timer so no request pays for it (see checkpointer.ts).
    if (options.backgroundCheckpoints) db.pragma('wal_autocheckpoint = 0');
    // Another process may have migrated since the read-only check; check again under the write lock.
    db.transaction(() => {
      const check = checkSchema(db, migrations);
      if (!check.compatible) throw new StoreTooNewError(file, check.writtenBy, check.unknownSteps);
    }).immediate();
    runMigrations(db, migrations);
    if (migrations.some((m) => m.id === '0002_store_meta')) {
      db.prepare(
        "INSERT INTO store_meta (key, value) VALUES ('written_by', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE value <> excluded.value",
      ).run(APP_VERSION);
    }
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Read-only look at the ledger: closing a read-only connection never checkpoints into the file. */
function refuseIfNewer(file: string, migrations: readonly Migration[]): void {
  let db: Database.Database;
  try {
    db = new (sqliteDriver())(file, { readonly: true, fileMustExist: true });
  } catch {
    return; // unreadable here; the read-write open reports the real reason
  }
  try {
    const check = checkSchema(db, migrations);
    if (!check.compatible) throw new StoreTooNewError(file, check.writtenBy, check.unknownSteps);
  } catch (error) {
    if (error instanceof StoreTooNewError) throw error;
  } finally {
    db.close();
  }
}

/** Crash recovery: a message claimed when the process died was never confirmed, so it is pending again. */
export function recoverClaimed(db: Database.Database): number {
  return db.prepare("UPDATE queue SET status = 'pending', claimed_at = NULL WHERE status = 'claimed'").run().changes;
}

/**
 * Rows 0.2.0 parked until a UTC midnight when the day's observer budget was spent: that pause
 * belongs to the running worker's budget, not to the rows (issue 35), so they are due again.
 * Nothing else writes a not_before that falls exactly on a midnight (backoffs are now + a delay).
 */
export function freeBudgetParkedRows(db: Database.Database): number {
  return db.prepare("UPDATE queue SET not_before = 0 WHERE status = 'pending' AND not_before > 0 AND not_before % 86400000 = 0").run().changes;
}

/**
 * Turns on incremental auto-vacuum for a file made before it existed: a one-time VACUUM, which
 * rewrites the file (it needs free disk about the file's size and runs in its own transaction,
 * so a failure leaves the file as it was). Only the worker, which holds the data dir's lock,
 * calls this.
 */
export function enableIncrementalVacuum(db: Database.Database): 'already' | 'converted' {
  if (Number(db.pragma('auto_vacuum', { simple: true })) === 2) return 'already';
  db.pragma('auto_vacuum = INCREMENTAL');
  db.exec('VACUUM');
  return 'converted';
}
