import { describe, expect, it } from 'vitest';
import { DataDirError } from '../../src/data-dir/index.js';
import { StoreTooNewError } from '../../src/store/index.js';
import { classifyStartFailure, configFailure, SocketListenError } from '../../src/worker/start-failure.js';

const ctx = { dataDir: '/d', dbFile: '/d/memtrace.db', version: '0.2.0', port: 4100, nowMs: Date.parse('2026-03-04T05:06:07Z') };
const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('why a worker could not start, and what the user does about it', () => {
  it('reads SQLite and system codes, never the message', () => {
    expect(classifyStartFailure(coded('SQLITE_NOTADB', 'file is not a database'), ctx)).toMatchObject({
      reason: 'store_corrupt',
      detail: 'the store /d/memtrace.db is damaged (SQLITE_NOTADB)',
    });
    expect(classifyStartFailure(coded('SQLITE_CORRUPT'), ctx).reason).toBe('store_corrupt');
    expect(classifyStartFailure(coded('SQLITE_FULL'), ctx)).toMatchObject({ reason: 'disk_full', detail: 'the disk holding /d is full (SQLITE_FULL)' });
    expect(classifyStartFailure(coded('ENOSPC'), ctx).reason).toBe('disk_full');
    expect(classifyStartFailure(coded('SQLITE_READONLY'), ctx).reason).toBe('store_unreadable');
    expect(classifyStartFailure(coded('EADDRINUSE'), ctx)).toMatchObject({ reason: 'port', detail: 'port 4100 is already in use by another program' });
    // A message that sounds like a full disk but carries no code is not one.
    expect(classifyStartFailure(new Error('database or disk is full'), ctx).reason).toBe('other');
  });

  it('names the fix for each: a file to move, a variable to set, a socket path to clear', () => {
    expect(classifyStartFailure(coded('SQLITE_NOTADB'), ctx).fix).toContain("mv '/d/memtrace.db' '/d/memtrace.db.damaged'");
    expect(classifyStartFailure(coded('EADDRINUSE'), ctx).fix).toContain('MEMTRACE_PORT');
    const socket = classifyStartFailure(new SocketListenError('/d/worker.sock', coded('EISDIR')), ctx);
    expect(socket).toMatchObject({ reason: 'socket', detail: "cannot listen on the hooks' socket /d/worker.sock (EISDIR)" });
    expect(socket.fix).toContain('/d/worker.sock');
  });

  it('keeps the store-from-the-future and data-dir refusals as the reasons they are', () => {
    expect(classifyStartFailure(new StoreTooNewError('/d/memtrace.db', '0.3.0', ['1200_x']), ctx)).toMatchObject({ reason: 'store_newer', version: '0.2.0' });
    expect(classifyStartFailure(new DataDirError('data dir /d is not writable (EACCES)'), ctx).reason).toBe('data_dir');
  });

  it('records the version that failed and when', () => {
    expect(configFailure(['MEMTRACE_PORT=x is not a port number'], ctx)).toEqual({
      reason: 'config',
      detail: 'MEMTRACE_PORT=x is not a port number',
      fix: 'fix or unset that variable in the environment the agent runs hooks with',
      version: '0.2.0',
      at: '2026-03-04T05:06:07.000Z',
    });
  });
});
