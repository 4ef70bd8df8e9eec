import fs from 'node:fs';

/**
 * How a hook knows it talks to THIS data dir's worker before it sends a byte of an event: the
 * worker listens on a Unix socket inside the data dir, which is 0700. Only its owner (or root)
 * can create a file there, so whatever answers on that socket is the owner's own worker; a
 * stranger holding the TCP port never sees a hook's traffic. No token crosses the socket.
 */
export const WORKER_SOCKET = 'worker.sock';

/**
 * A Unix socket address holds about 107 bytes, and data dirs can be longer: callers connect or
 * listen by the name relative to the data dir (hooks change into it; the worker binds from it).
 */
export const SOCKET_PATH_LIMIT = 100;

/**
 * Whether the data dir can be trusted to hold our worker's socket: a real directory (not a
 * symlink someone else planted), owned by this user, writable by nobody else.
 */
export function dataDirIsPrivate(dataDir: string): boolean {
  try {
    const stat = fs.lstatSync(dataDir);
    if (!stat.isDirectory()) return false;
    const uid = process.getuid?.();
    return (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}
