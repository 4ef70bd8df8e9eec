/**
 * A write the store could not make for lack of space or a failing disk: the server's fault,
 * not the request's. Read from the error code only (SQLite's, or the fs errno).
 */
export type StorageFault = 'disk_full' | 'io_error';

export function storageFaultOf(error: unknown): StorageFault | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'disk_full';
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code === 'EIO' || code === 'EROFS') return 'io_error';
  return null;
}
