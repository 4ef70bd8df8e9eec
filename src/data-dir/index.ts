export { AUTH_TOKEN_FILE, authTokenPath, readAuthToken } from './auth-token.js';
export { ensureAuthToken } from './auth-token-create.js';
export { listSpool, readSpooled, removeSpooled, spoolCall, pruneSpool, SPOOL_DIR, type SpooledCall } from './spool.js';
export { DataDirError, preparePrivateDataDir } from './private-dir.js';
export { acquireWorkerLock, readWorkerInfo, runningWorker, WorkerRunningError, type WorkerInfo, type WorkerLock } from './worker-lock.js';
