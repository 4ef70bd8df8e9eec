/**
 * The forwarders that carry an event over the data dir's socket without curl: the native program
 * `memtrace install` builds (bin/memtrace-hook.c), run by the installed hook command itself or
 * through the shell forwarder, and the Perl one (bin/memtrace-hook.pl, where there is no native
 * build). Each runs with curl off PATH, so only it can have carried the event, against a plain HTTP server on the data dir's
 * socket: to see exactly what it sends and what it does with each kind of answer. The worker
 * itself is behind them in the regression tests.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirServers, type Answer, type SeenRequest } from '../support/data-dir-http-server.js';
import { hookCommand, runHookProcess } from '../support/hook-process.js';
import { SOCKET_FORWARDERS } from '../support/socket-forwarder-kinds.js';
import { makeTempDir } from '../support/temp-dir.js';

describe.each(SOCKET_FORWARDERS)('the $name forwarder', (forwarder) => {
  let temp: ReturnType<typeof makeTempDir>;
  const servers = new DataDirServers();
  afterEach(async () => {
    await servers.close();
    temp.cleanup();
  });

  async function listen(dataDir: string, answer: Answer): Promise<SeenRequest[]> {
    const seen = await servers.listen(dataDir, answer);
    forwarder.prepare(dataDir);
    return seen;
  }

  const run = (dataDir: string, event: string, input: Buffer, env: Record<string, string> = {}) =>
    runHookProcess(hookCommand(forwarder.via, 'claude-code', event, dataDir), input, {
      env: { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir, ...forwarder.env(), ...env },
    });

  it('streams every byte of an event written in chunks and prints the answer', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    const seen = await listen(dataDir, (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"continue":true}'));
    const input = Buffer.from(JSON.stringify({ session_id: 's', blob: 'é\u0000x'.repeat(400_000) }));
    const r = await run(dataDir, 'session-start', input);
    expect(r).toMatchObject({ code: 0, stdout: '{"continue":true}', stderr: '' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/hook/claude-code/session-start' });
    expect(seen[0]!.headers['x-memtrace-hook-via']).toBe('settings');
    expect(seen[0]!.headers['x-memtrace-hook-uptime']).toMatch(/^\d+\.\d+$/);
    expect(seen[0]!.body.equals(input)).toBe(true);
  });

  it('prints a chunked answer whole, and nothing for a refusal', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    const context = JSON.stringify({ hookSpecificOutput: { additionalContext: 'x'.repeat(70_000) } });
    let next: Answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(context.slice(0, 1000));
      res.end(context.slice(1000));
    };
    await listen(dataDir, (res) => next(res));
    expect((await run(dataDir, 'session-start', Buffer.from('{}'))).stdout).toBe(context);
    next = (res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"boom"}}');
    expect(await run(dataDir, 'session-start', Buffer.from('{}'))).toMatchObject({ code: 0, stdout: '' });
  });

  it('reaches a socket whose full path is too long for an address, from inside the data dir', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'a'.repeat(60), 'b'.repeat(60), 'data');
    const seen = await listen(dataDir, (res) => res.writeHead(200).end('{}'));
    const r = await run(dataDir, 'post-tool-use', Buffer.from('{"tool_use_id":"t1"}'));
    expect(r.code).toBe(0);
    expect(seen.map((s) => s.body.toString())).toEqual(['{"tool_use_id":"t1"}']);
  });

  it('gives up on a worker that takes the event and never answers, and exits 0', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    const seen = await listen(dataDir, () => undefined);
    const r = await run(dataDir, 'stop', Buffer.from('{"session_id":"s"}'), { MEMTRACE_HOOK_TIMEOUT_S: '1' });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(seen).toHaveLength(1);
  });
});
