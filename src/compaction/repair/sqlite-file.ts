import path from 'node:path';
import type Database from 'better-sqlite3';
import { writePrivateFile } from '../../data-dir/private-files.js';

/** Another connection holds the write lock: repair refuses rather than race it. */
export class DatabaseBusyError extends Error {
  constructor(
    readonly file: string,
    readonly waitedMs: number,
  ) {
    super(
      `${file} is being written by another process (waited ${waitedMs} ms for SQLite's write lock); ` +
        'stop lossless-claw / the memtrace worker or try again when it is idle. Nothing was changed.',
    );
    this.name = 'DatabaseBusyError';
  }
}

export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Takes and releases SQLite's write lock (BEGIN IMMEDIATE) within a bounded wait, so repair
 * refuses up front while another process writes. Later writes wait the same bound.
 */
export function probeWriteLock(db: Database.Database, file: string, waitMs: number): void {
  db.pragma(`busy_timeout = ${waitMs}`);
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (error) {
    if (isBusyError(error)) throw new DatabaseBusyError(file, waitMs);
    throw error;
  }
  db.exec('ROLLBACK');
}

/** `FILE.repair-YYYYMMDDTHHMMSSmmmZ.bak` next to the file. */
function backupPathFor(file: string, nowMs: number): string {
  const stamp = new Date(nowMs).toISOString().replace(/[-:.]/g, '');
  return path.join(path.dirname(file), `${path.basename(file)}.repair-${stamp}.bak`);
}

/**
 * A consistent copy (VACUUM INTO reads one snapshot, WAL included). The backup holds the same
 * memory as the original, so it is created empty and 0600 first (VACUUM INTO fills an empty file)
 * and is never readable by others, whatever the umask.
 */
export function backupDatabase(db: Database.Database, file: string, nowMs: number): string {
  const target = backupPathFor(file, nowMs);
  try {
    writePrivateFile(target, '', 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`backup ${target} already exists`);
    throw error;
  }
  db.prepare('VACUUM INTO ?').run(target);
  return target;
}
