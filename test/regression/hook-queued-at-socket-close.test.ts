import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listenUnixSocket } from '../../src/http-edge/index.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * Found by the soak's take-over: one hook event of 1,567 was in neither worker. A forwarder that
 * connected to the old worker's socket just before it closed for the hand-over had written its
 * event (so it exits 0: the worker answers for it), but the connection was still queued, not yet
 * accepted, and closing the listener reset it. Closing now removes the socket's name first and
 * serves what was already queued.
 */
describe('a hook queued on the worker socket as it closes', () => {
  let temp: { dir: string; cleanup(): void } | null = null;
  afterEach(() => temp?.cleanup());

  it('is served, not reset, and a later hook finds no socket (so it spools)', async () => {
    temp = makeTempDir('memtrace-socket-close-');
    fs.chmodSync(temp.dir, 0o700);
    const received: string[] = [];
    const handler = () => {
      const chunks: Buffer[] = [];
      return {
        push: (chunk: Buffer) => void chunks.push(chunk),
        end: () => {
          received.push(Buffer.concat(chunks).toString('utf8'));
          return { status: 200, body: '{}' };
        },
      };
    };
    const socket = await listenUnixSocket(handler, temp.dir, 'worker.sock', { pathLimit: 100 });
    const event = JSON.stringify({ tool_use_id: 'toolu_queued_at_close' });
    // The client runs while this process is blocked: its connection waits in the listen queue,
    // its request written, exactly as a forwarder's does when the worker is busy.
    const client = spawnSync(
      process.execPath,
      [
        '-e',
        `const s = require('node:net').connect(process.argv[1], () => s.write(process.argv[2], () => process.exit(0)));
         s.on('error', (e) => { console.error(e.message); process.exit(1); });`,
        socket.path,
        `POST /hook/claude-code/post-tool-use HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(event)}\r\n\r\n${event}`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(client.stderr).toBe('');
    expect(client.status).toBe(0);
    await socket.close();
    expect(received).toEqual([event]);
    expect(fs.existsSync(path.join(temp.dir, 'worker.sock'))).toBe(false);
  });
});
