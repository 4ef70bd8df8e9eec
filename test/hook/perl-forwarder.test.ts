/**
 * The forwarder as installed streams with perl where perl is there (it starts in a fraction of
 * curl's time), speaking HTTP to whatever listens on the data dir's socket. These run it against
 * a plain HTTP server on that socket, to see exactly what it sends and what it does with each
 * kind of answer; the worker itself is behind it in the regression tests.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookCommand, runHookProcess } from '../support/hook-process.js';
import { makeTempDir } from '../support/temp-dir.js';
import { pathWithOnly } from '../support/tool-path.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

type Answer = (res: http.ServerResponse) => void;

describe('the forwarder on a machine with perl', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let server: http.Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
    temp.cleanup();
  });

  /** A data dir (0700, ours) whose worker.sock is a plain HTTP server answering with `answer`. */
  async function listen(dataDir: string, answer: Answer): Promise<Seen[]> {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const seen: Seen[] = [];
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
        answer(res);
      });
    });
    // Bound from inside the data dir, as the worker does: the full path may be too long for an address.
    const cwd = process.cwd();
    process.chdir(dataDir);
    try {
      await new Promise<void>((resolve) => server!.listen('worker.sock', resolve));
    } finally {
      process.chdir(cwd);
    }
    return seen;
  }

  const run = (dataDir: string, event: string, input: Buffer, env: Record<string, string> = {}, tools: 'with curl' | 'without curl' = 'with curl') => {
    const command = hookCommand('forwarder', 'claude-code', event);
    // Without curl on PATH, only perl can have carried the event.
    const pathEnv: Record<string, string> = tools === 'without curl' ? { PATH: pathWithOnly(['sh', 'perl']) } : {};
    return runHookProcess(command, input, { env: { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir, ...pathEnv, ...env } });
  };

  it('streams every byte of the event to the socket and prints the answer, with no curl on PATH', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    const seen = await listen(dataDir, (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"continue":true}'));
    const input = Buffer.from(JSON.stringify({ session_id: 's', blob: 'é'.repeat(300_000) }));
    const r = await run(dataDir, 'session-start', input, {}, 'without curl');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"continue":true}');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/hook/claude-code/session-start' });
    expect(seen[0]!.headers['x-memtrace-hook-via']).toBe('settings');
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
    const chunked = await run(dataDir, 'session-start', Buffer.from('{}'));
    expect(chunked.stdout).toBe(context);
    next = (res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"boom"}}');
    const refused = await run(dataDir, 'session-start', Buffer.from('{}'));
    expect(refused).toMatchObject({ code: 0, stdout: '' });
  });

  it('reaches a socket whose full path is too long for an address, from inside the data dir', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'a'.repeat(60), 'b'.repeat(60), 'data');
    const seen = await listen(dataDir, (res) => res.writeHead(200).end('{}'));
    const r = await run(dataDir, 'post-tool-use', Buffer.from('{"tool_use_id":"t1"}'), {}, 'without curl');
    expect(r.code).toBe(0);
    expect(seen.map((s) => s.body.toString())).toEqual(['{"tool_use_id":"t1"}']);
  });

  it('falls back to curl when the Perl half is missing beside the shell forwarder', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    const seen = await listen(dataDir, (res) => res.writeHead(200).end('{"ok":1}'));
    const lone = path.join(temp.dir, 'bin', 'memtrace-hook');
    fs.mkdirSync(path.dirname(lone));
    fs.copyFileSync(hookCommand('forwarder', 'claude-code', 'stop')[1]!, lone);
    const r = await runHookProcess(['sh', lone, 'claude-code', 'stop', 'settings', process.execPath], Buffer.from('{"session_id":"s"}'), {
      env: { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir },
    });
    expect(r).toMatchObject({ code: 0, stdout: '{"ok":1}' });
    expect(seen.map((s) => s.body.toString())).toEqual(['{"session_id":"s"}']);
  });

  it('says so on stderr when no worker runs and the installed node is gone, and exits 0', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const [sh, forwarder, host, event, via] = hookCommand('forwarder', 'claude-code', 'stop');
    const r = await runHookProcess([sh!, forwarder!, host!, event!, via!, path.join(temp.dir, 'moved', 'node')], Buffer.from('{"session_id":"s"}'), {
      env: { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("this stop event was not kept; run 'memtrace install' again");
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
