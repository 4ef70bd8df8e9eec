import type { WorkerConfig } from '../config.js';
import type { Logger } from '../log.js';
import { startCheckpointer } from '../store/checkpointer.js';
import { enableIncrementalVacuum, openStore } from '../store/index.js';

/**
 * The store as the worker opens it, holding the data dir's lock: messages a crash left claimed go
 * back to pending, WAL checkpoints run off the event loop (no request pays for one), and an older
 * file is converted once so retention can return freed space.
 */
export function openWorkerStore(config: Pick<WorkerConfig, 'dbFile'>, log: Logger) {
  const store = openStore(config.dbFile, { backgroundCheckpoints: true, recoverClaimed: true });
  const checkpointer = startCheckpointer(config.dbFile, { onError: (error) => log.warn('WAL checkpoint failed', { error: String(error) }) });
  if (store.recoveredClaimed > 0) log.warn('returned claimed messages to pending after an unclean stop', { count: store.recoveredClaimed });
  try {
    if (enableIncrementalVacuum(store.db) === 'converted')
      log.info('the store was rewritten once so retention can return freed space (auto_vacuum=INCREMENTAL)');
  } catch (error) {
    // Retention still prunes; the file just keeps its size until the conversion succeeds.
    log.warn('could not turn on incremental vacuum; freed space stays inside the file', { error: String(error) });
  }
  return { store, checkpointer };
}
