import type { StartFailure, StartFailureReason } from '../data-dir/start-state.js';

/** A failure while binding the hooks' socket (kept apart from the store's and the port's). */
export class SocketListenError extends Error {
  constructor(
    readonly socketPath: string,
    error: unknown,
  ) {
    const code = (error as NodeJS.ErrnoException | null)?.code ?? (error instanceof Error ? error.message : String(error));
    super(`cannot listen on the hooks' socket ${socketPath} (${code})`, { cause: error });
    this.name = 'SocketListenError';
  }
}

export interface StartContext {
  dataDir: string;
  dbFile: string;
  version: string;
  /** The port asked for (explicitly: a taken default port is not a failure). */
  port: number;
  nowMs: number;
}

/**
 * Why a worker could not start, and what the user does about it, from the error its start threw.
 * Pure: the error's name and code decide, never its free text. The messages name files and
 * variables, so the line a hook prints at SessionStart is enough to act on.
 */
export function classifyStartFailure(error: unknown, ctx: StartContext): StartFailure {
  const at = new Date(ctx.nowMs).toISOString();
  const make = (reason: StartFailureReason, detail: string, fix: string): StartFailure => ({ reason, detail, fix, version: ctx.version, at });
  const name = (error as Error | null)?.name;
  const code = String((error as NodeJS.ErrnoException | null)?.code ?? '');
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'StoreTooNewError')
    return make(
      'store_newer',
      `the store was written by a newer memtrace than this ${ctx.version}: ${message}`,
      'run the newer memtrace (hooks start the newest installed one), or install it again',
    );
  if (name === 'DataDirError') return make('data_dir', message, 'set MEMTRACE_DATA_DIR to a directory you own, or fix its permissions');
  if (error instanceof SocketListenError)
    return make('socket', message, `remove or rename what is at ${error.socketPath} (the worker makes the socket itself), then run 'memtrace worker start'`);
  if (code === 'EADDRINUSE')
    return make('port', `port ${ctx.port} is already in use by another program`, 'set MEMTRACE_PORT to a free port (or 0 for any), or unset it');
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'SQLITE_IOERR_WRITE')
    return make('disk_full', `the disk holding ${ctx.dataDir} is full (${code})`, `free space on that disk, then run 'memtrace worker start'`);
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))
    return make(
      'store_corrupt',
      `the store ${ctx.dbFile} is damaged (${code})`,
      `move it aside (mv '${ctx.dbFile}' '${ctx.dbFile}.damaged') and run 'memtrace worker start'; a new store is made and the spooled events go into it`,
    );
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM')
    return make(
      'store_unreadable',
      `the store ${ctx.dbFile} cannot be opened for writing (${code})`,
      `make it readable and writable by you (chmod 600 '${ctx.dbFile}')`,
    );
  return make('other', `could not start: ${message.split('\n')[0]}`, `see ${ctx.dataDir}/logs/worker.log`);
}

/** A configuration the worker refuses (a variable with a bad value): each error names its variable. */
export function configFailure(errors: readonly string[], ctx: Pick<StartContext, 'version' | 'nowMs'>): StartFailure {
  return {
    reason: 'config',
    detail: errors.join('; '),
    fix: 'fix or unset that variable in the environment the agent runs hooks with',
    version: ctx.version,
    at: new Date(ctx.nowMs).toISOString(),
  };
}
