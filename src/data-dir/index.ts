export { readAuthToken } from './auth-token.js';
export { ensureAuthToken } from './auth-token-create.js';
export { keepUnreadable, listSpool, spoolCall, spoolHookEvent, pruneSpool, MAX_RAW_SPOOL_CHARS, type SpooledHookEvent } from './spool.js';
export { DataDirError, preparePrivateDataDir } from './private-dir.js';
export { makePrivateDir, openPrivateFile, touchPrivateFile, writePrivateFile, writePrivateFileAtomic } from './private-files.js';
export { acquireWorkerLock, readWorkerInfo, runningWorker, WorkerRunningError, type WorkerInfo, type WorkerLock } from './worker-lock.js';
export { WORKER_SOCKET, SOCKET_PATH_LIMIT, dataDirIsPrivate } from './worker-socket.js';
export { readContextFile, writeContextFile } from './context-file.js';
export { isObserverScratch } from './observer-scratch.js';
export { lockExclusively } from './process-lock.js';
export {
  claimStartAttempt,
  clearStartState,
  readStartState,
  recordStartFailure,
  recordWorkerRunning,
  startProblemLine,
  STABLE_AFTER_MS,
  type StartFailure,
  type StartState,
} from './start-state.js';
export { readWorkerPackage, writeWorkerPackage } from './worker-package.js';
