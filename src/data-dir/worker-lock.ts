import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { lockExclusively } from './process-lock.js';
import { writePrivateFileAtomic } from './private-files.js';
import { sqliteDriver, SqliteDriverError } from '../store/sqlite-driver.js';

/**
 * One worker per data dir. The lock is SQLite's exclusive file lock on DATA_DIR/worker.lock,
 * which the OS releases when the process dies, so a kill -9 never leaves a stale lock.
 * DATA_DIR/worker.json says who holds it (pid, port) for the one-line refusal and `worker status`.
 */
export interface WorkerInfo {
  pid: number;
  /** The HTTP API's port once it listens. */
  port: number | null;
  version: string;
  started_at: string;
  /** The folder of the install it runs from (`<package>/bin`); absent from workers before take-over. */
  package?: string;
  /** The port it was configured for, when that one was taken and `port` is another. */
  port_wanted?: number;
}

export interface WorkerLock {
  /** Records the bound port once the server listens. */
  update(info: Partial<WorkerInfo>): void;
  release(): void;
}

export class WorkerRunningError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: WorkerInfo | null,
  ) {
    super(
      holder
        ? `another memtrace worker is running on ${dataDir} (pid ${holder.pid}${holder.port ? `, port ${holder.port}` : ''}); stop it with 'memtrace worker stop'`
        : `another memtrace worker is running on ${dataDir}; stop it with 'memtrace worker stop'`,
    );
    this.name = 'WorkerRunningError';
  }
}

const LOCK_FILE = 'worker.lock';
const INFO_FILE = 'worker.json';

export function acquireWorkerLock(dataDir: string, info: WorkerInfo): WorkerLock {
  // Waits out a `worker status` probe; a running worker holds the lock for good.
  const lock = lockExclusively(path.join(dataDir, LOCK_FILE), { busyTimeoutMs: 300 });
  if (lock === null) throw new WorkerRunningError(dataDir, readWorkerInfo(dataDir));
  let current = info;
  writeInfo(dataDir, current);
  return {
    update(partial) {
      current = { ...current, ...partial };
      writeInfo(dataDir, current);
    },
    release() {
      try {
        fs.rmSync(path.join(dataDir, INFO_FILE), { force: true });
      } finally {
        lock.release();
      }
    },
  };
}

/** Who holds the lock, or null when no worker runs on this data dir. Never takes the lock. */
export function runningWorker(dataDir: string): WorkerInfo | null {
  const file = path.join(dataDir, LOCK_FILE);
  if (!fs.existsSync(file)) return null;
  let probe: Database.Database;
  try {
    probe = new (sqliteDriver())(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    // A driver that cannot load says so; it is not "no worker".
    if (error instanceof SqliteDriverError) throw error;
    return null;
  }
  try {
    probe.pragma('busy_timeout = 0');
    probe.prepare('SELECT count(*) FROM sqlite_master').get();
    return null;
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') return null;
    return readWorkerInfo(dataDir) ?? { pid: 0, port: null, version: 'unknown', started_at: '' };
  } finally {
    probe.close();
  }
}

export function readWorkerInfo(dataDir: string): WorkerInfo | null {
  try {
    const value = JSON.parse(fs.readFileSync(path.join(dataDir, INFO_FILE), 'utf8')) as WorkerInfo;
    return typeof value.pid === 'number' ? value : null;
  } catch {
    return null;
  }
}

function writeInfo(dataDir: string, info: WorkerInfo): void {
  writePrivateFileAtomic(path.join(dataDir, INFO_FILE), `${JSON.stringify(info)}\n`);
}
