export { AUTH_TOKEN_FILE, authTokenPath, ensureAuthToken, readAuthToken } from './auth-token.js';
export { DataDirError, preparePrivateDataDir } from './private-dir.js';
export { acquireWorkerLock, readWorkerInfo, runningWorker, WorkerRunningError, type WorkerInfo, type WorkerLock } from './worker-lock.js';
