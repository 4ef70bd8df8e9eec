import fs from 'node:fs';
import { openStore } from '../store/index.js';
import { createShareLedger } from './share-ledger.js';
import { readShareUrls } from './share-urls.js';
import type { ShareStatusInput } from './status-line.js';

/**
 * Every shared project's state, read from the data dir by a process that is not the worker
 * (`share list`, `worker status`, `doctor`); an empty list when nothing is stored yet.
 */
export function readShareStatus(dataDir: string, dbFile: string): ShareStatusInput[] {
  if (!fs.existsSync(dbFile)) return [];
  const store = openStore(dbFile, { recoverClaimed: false });
  try {
    const urls = readShareUrls(dataDir);
    return createShareLedger(store.db)
      .list()
      .map((state) => ({ ...state, hasUrl: urls.has(state.project) }));
  } finally {
    store.close();
  }
}
