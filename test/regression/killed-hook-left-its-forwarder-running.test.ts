/**
 * A host kills a hook that outlives its timeout. The shell forwarder used to start the native
 * forwarder as a child and wait for it: the kill reached the shell, and the native forwarder went
 * on holding the worker's connection until its own timeout (10 s by default). The shell now execs
 * it (as it always did perl), so the process the host kills is the one that holds the connection.
 */
import { spawn } from 'node:child_process';
import type http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirServers } from '../support/data-dir-http-server.js';
import { hookCommand } from '../support/hook-process.js';
import { SOCKET_FORWARDERS } from '../support/socket-forwarder-kinds.js';
import { makeTempDir } from '../support/temp-dir.js';

describe.each(SOCKET_FORWARDERS)('a hook through the $name forwarder that its host kills', (forwarder) => {
  let temp: ReturnType<typeof makeTempDir>;
  const servers = new DataDirServers();
  afterEach(async () => {
    await servers.close();
    temp.cleanup();
  });

  it('leaves nothing holding the worker', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    let taken: (res: http.ServerResponse) => void = () => undefined;
    const eventTaken = new Promise<http.ServerResponse>((resolve) => (taken = resolve));
    // A worker that takes the event and never answers: the host's timeout is what ends the hook.
    await servers.listen(dataDir, (res) => taken(res));
    forwarder.prepare(dataDir);
    const [command, ...args] = hookCommand(forwarder.via, 'claude-code', 'stop', dataDir);
    const hook = spawn(command!, args, {
      env: { PATH: process.env.PATH ?? '', MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir, MEMTRACE_HOOK_TIMEOUT_S: '600', ...forwarder.env() },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    hook.stdin.end('{"session_id":"s"}');
    const res = await eventTaken;
    const connectionClosed = new Promise<void>((resolve) => res.socket!.once('close', () => resolve()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => hook.once('exit', (_code, signal) => resolve(signal)));
    hook.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    // Held by a process the kill did not reach, the connection would stay open for 600 s.
    await connectionClosed;
  });
});
