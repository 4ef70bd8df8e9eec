import fs from 'node:fs';
import { sqliteDriver } from '../store/index.js';
import { createShareLedger } from './share-ledger.js';
import { readShareUrls } from './share-urls.js';
import type { ShareStatusInput } from './status-line.js';

/**
 * Every shared project's state, read from the data dir by a process that is not the worker
 * (`share list`, `worker status`, `doctor`): read-only, so it never migrates or writes the store;
 * an empty list when nothing is stored yet or the store predates sharing.
 */
export function readShareStatus(dataDir: string, dbFile: string): ShareStatusInput[] {
  if (!fs.existsSync(dbFile)) return [];
  const db = new (sqliteDriver())(dbFile, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'share_projects'").get() === undefined) return [];
    const urls = readShareUrls(dataDir);
    return createShareLedger(db)
      .list()
      .map((state) => ({ ...state, hasUrl: urls.has(state.project) }));
  } finally {
    db.close();
  }
}
