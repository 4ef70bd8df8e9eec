import type Database from 'better-sqlite3';
import { sqliteDriver } from '../store/sqlite-driver.js';
import { touchPrivateFile } from './private-files.js';

/**
 * An exclusive lock on a file, held by this process until released: SQLite's exclusive lock,
 * which the OS releases when the process dies, so a kill -9 never leaves it behind. Null when
 * another process holds it.
 */
export function lockExclusively(file: string, options: { busyTimeoutMs?: number } = {}): { release(): void } | null {
  touchPrivateFile(file);
  const db: Database.Database = new (sqliteDriver())(file);
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 0)}`);
  try {
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw error;
  }
  return { release: () => db.close() };
}
