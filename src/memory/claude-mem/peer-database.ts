import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { sqliteDriver } from '../../store/sqlite-driver.js';
import type { TableColumns } from './peer-schema.js';

/**
 * claude-mem's database opened for reading only, never changed, also while its worker runs.
 *
 * SQLite makes a reader of a WAL database create `-wal` and `-shm` files beside it when they are
 * not there (the peer's worker is stopped), and leaves them. So a WAL database with no `-wal`
 * file is read from a copy in a private temporary folder instead: the copy is a consistent
 * snapshot when the file's size, time and inode are the same after copying and no `-wal` has
 * appeared meanwhile (else the peer started: it is read in place, where its own files now are).
 * A database in use (its `-wal` exists) or in rollback-journal mode is read in place: a reader
 * adds nothing there. A writer in WAL mode never blocks the read (it sees the last commit); a
 * rollback-journal writer holding its lock past the busy timeout does, and is reported.
 */
export type PeerProblem = 'missing' | 'not_a_file' | 'not_sqlite' | 'not_claude_mem' | 'unreadable' | 'locked' | 'corrupt';

export class PeerDatabaseError extends Error {
  constructor(
    readonly problem: PeerProblem,
    message: string,
  ) {
    super(message);
    this.name = 'PeerDatabaseError';
  }
}

export interface PeerDatabase {
  db: Database.Database;
  tables: TableColumns;
  /** Read from a private copy (the database was not in use and in WAL mode). */
  snapshot: boolean;
  close(): void;
}

const HEADER = Buffer.from('SQLite format 3\0', 'latin1');
const BUSY_TIMEOUT_MS = 3_000;

type FileId = { size: number; mtimeMs: number; ino: number };
const idOf = (file: string): FileId | null => {
  try {
    const s = fs.statSync(file);
    return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino };
  } catch {
    return null;
  }
};
const sameId = (a: FileId | null, b: FileId | null) => a !== null && b !== null && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

/** Turns SQLite's error codes into the problems a user can act on. */
export function peerErrorOf(error: unknown, file: string): PeerDatabaseError {
  if (error instanceof PeerDatabaseError) return error;
  const code = (error as { code?: string }).code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_NOTADB') return new PeerDatabaseError('not_sqlite', `${file} is not a SQLite database`);
  if (code.startsWith('SQLITE_CORRUPT'))
    return new PeerDatabaseError('corrupt', `${file} is damaged (${message}); run claude-mem's own repair, or import a backup`);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return new PeerDatabaseError('locked', `${file} is locked by another process (${message}); try again when claude-mem's worker is idle`);
  return new PeerDatabaseError('unreadable', `cannot read ${file} (${message})`);
}

function readHeader(file: string): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const header = Buffer.alloc(100);
    const n = fs.readSync(fd, header, 0, 100, 0);
    return header.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

function columnsOf(db: Database.Database): TableColumns {
  const tables = new Map<string, Set<string>>();
  for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").all() as Array<{ name: string }>) {
    tables.set(name, new Set((db.prepare('SELECT name FROM pragma_table_info(?)').all(name) as Array<{ name: string }>).map((c) => c.name)));
  }
  return tables;
}

function openReadOnly(file: string): Database.Database {
  const db = new (sqliteDriver())(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

export function openPeerDatabase(file: string): PeerDatabase {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new PeerDatabaseError('missing', `no such file: ${file}`);
    throw new PeerDatabaseError('unreadable', `cannot read ${file} (${code ?? String(error)})`);
  }
  if (!stat.isFile()) throw new PeerDatabaseError('not_a_file', `${file} is not a file`);
  let header: Buffer;
  try {
    header = readHeader(file);
  } catch (error) {
    throw new PeerDatabaseError('unreadable', `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (header.length < 100 || !header.subarray(0, 16).equals(HEADER)) throw new PeerDatabaseError('not_sqlite', `${file} is not a SQLite database`);
  const wal = header[18] === 2 && header[19] === 2;

  let snapshotDir: string | null = null;
  let target = file;
  const before = idOf(file);
  if (wal && !fs.existsSync(`${file}-wal`)) {
    snapshotDir = fs.mkdtempSync(path.join(os.tmpdir(), 'memtrace-claude-mem-'));
    const copy = path.join(snapshotDir, 'claude-mem.db');
    try {
      fs.copyFileSync(file, copy);
      if (sameId(before, idOf(file)) && !fs.existsSync(`${file}-wal`)) target = copy;
    } catch {
      // no room for a copy: read in place
    }
    if (target === file) {
      fs.rmSync(snapshotDir, { recursive: true, force: true });
      snapshotDir = null;
    }
  }
  const cleanup = () => {
    if (snapshotDir) fs.rmSync(snapshotDir, { recursive: true, force: true });
  };
  let db: Database.Database;
  try {
    db = openReadOnly(target);
  } catch (error) {
    cleanup();
    throw peerErrorOf(error, file);
  }
  let tables: TableColumns;
  try {
    tables = columnsOf(db);
  } catch (error) {
    db.close();
    cleanup();
    throw peerErrorOf(error, file);
  }
  return {
    db,
    tables,
    snapshot: snapshotDir !== null,
    close() {
      db.close();
      cleanup();
    },
  };
}
