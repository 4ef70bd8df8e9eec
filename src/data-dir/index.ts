export { AUTH_TOKEN_FILE, authTokenPath, readAuthToken } from './auth-token.js';
export { ensureAuthToken } from './auth-token-create.js';
export { isSpooledHookEvent, keepUnreadable, setAsideUnreadable, UNREADABLE_DIR, listSpool, readSpooled, removeSpooled, spoolCall, spoolHookEvent, pruneSpool, SPOOL_DIR, MAX_RAW_SPOOL_CHARS, type SpooledCall, type SpooledHookEvent, type SpoolEntry } from './spool.js';
export { DataDirError, preparePrivateDataDir } from './private-dir.js';
export { makePrivateDir, openPrivateFile, touchPrivateFile, writePrivateFile, writePrivateFileAtomic, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';
export { acquireWorkerLock, readWorkerInfo, runningWorker, WorkerRunningError, type WorkerInfo, type WorkerLock } from './worker-lock.js';
export { WORKER_SOCKET, SOCKET_PATH_LIMIT, workerSocketPath, dataDirIsPrivate } from './worker-socket.js';
export { CONTEXT_DIR, contextFilePath, readContextFile, writeContextFile } from './context-file.js';
