/**
 * What only the native forwarder does: when no worker listens, become the program it was given
 * with stdin unread (else say "nothing sent", exit 75), so the shell forwarder goes on to the paths
 * that handle a cold start. What it
 * shares with the Perl forwarder is in socket-forwarders.test.ts; that the event then reaches the
 * spool whole is in test/regression/refused-event-is-spooled.test.ts.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHookProcess } from '../support/hook-process.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('the native forwarder with no worker', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  it('says nothing was sent (75), and prints nothing', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const program = buildNativeForwarderInto(dataDir);
    const r = await runHookProcess([program, dataDir, 'claude-code', 'stop', 'settings'], Buffer.from('{"session_id":"s"}'), { env: { HOME: temp.dir } });
    expect(r).toMatchObject({ code: 75, stdout: '', stderr: '' });
  });

  it('becomes the program it was given, with stdin unread, when nothing was sent', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const program = buildNativeForwarderInto(dataDir);
    // As the shell forwarder execs it: what it could not send goes back to the shell's cold path.
    const event = Buffer.from(`{"session_id":"s","tool_response":"${'x'.repeat(200_000)}"}`);
    const r = await runHookProcess(
      [program, dataDir, 'claude-code', 'stop', 'settings', temp.dir, 'sh', '-c', 'echo "$0 $1"; wc -c', 'handed', 'back'],
      event,
      {
        env: { HOME: temp.dir },
      },
    );
    expect(r).toMatchObject({ code: 0, stdout: `handed back\n${event.length}\n`, stderr: '' });
  });

  it('says nothing was sent (75) for a data dir that is not a directory of ours', async () => {
    temp = makeTempDir();
    const program = buildNativeForwarderInto(path.join(temp.dir, 'data'));
    const theirs = path.join(temp.dir, 'theirs');
    fs.mkdirSync(theirs);
    fs.chownSync(theirs, 65534, 65534);
    for (const dir of [theirs, path.join(temp.dir, 'missing')]) {
      const r = await runHookProcess([program, dir, 'claude-code', 'stop', 'settings'], Buffer.from('{}'), { env: { HOME: temp.dir } });
      expect(r).toMatchObject({ code: 75, stdout: '' });
    }
  });
});

describe('the native forwarder with a worker', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let server: net.Server | null = null;
  afterEach(async () => {
    await new Promise((closed) => (server ? server.close(closed) : closed(undefined)));
    server = null;
    temp.cleanup();
  });

  it('sends an event that fits one chunk as one write: head, event and last chunk reach the worker in one read', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const program = buildNativeForwarderInto(dataDir);
    const reads: string[] = [];
    server = net.createServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        reads.push(chunk.toString());
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
      });
    });
    await new Promise<void>((listening) => server!.listen(path.join(dataDir, 'worker.sock'), listening));
    const event = JSON.stringify({ session_id: 's', tool_name: 'Read', tool_response: 'x'.repeat(20_000) });
    // Written into the pipe in pieces, as hosts do: the forwarder gathers them before it sends.
    const r = await runHookProcess([program, dataDir, 'claude-code', 'post-tool-use', 'settings'], Buffer.from(event), {
      env: { HOME: temp.dir },
      chunkBytes: 4096,
    });
    expect(r).toMatchObject({ code: 0, stdout: 'ok' });
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatch(/^POST \/hook\/claude-code\/post-tool-use HTTP\/1\.1\r\n[\s\S]*\r\n\r\n[0-9a-f]+\r\n/);
    expect(reads[0]!.endsWith(`${event}\r\n0\r\n\r\n`)).toBe(true);
  });
});
