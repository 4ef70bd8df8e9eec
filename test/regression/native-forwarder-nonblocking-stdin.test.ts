/**
 * Regression: a host may hand its hook a stdin pipe left non-blocking (Gemini CLI does). The native
 * forwarder took the EAGAIN of an empty pipe, while the host was still writing, for the end of the
 * input: it sent the event cut short, which the worker could only keep aside as unreadable.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createChunkedDecoder, headEnd } from '../../src/http-edge/http1-request.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { makeTempDir } from '../support/temp-dir.js';

/** Runs the forwarder with its stdin made non-blocking (perl sets it, then execs), writing the input in pieces with pauses, as a busy host does. */
function runWithNonBlockingStdin(command: string[], input: Buffer, env: Record<string, string>): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('perl', ['-MFcntl', '-e', 'fcntl(STDIN, F_SETFL, fcntl(STDIN, F_GETFL, 0) | O_NONBLOCK) or die; exec @ARGV or die', ...command], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.once('error', reject);
    child.once('close', resolve);
    const piece = 16 * 1024;
    let at = 0;
    const next = () => {
      if (at >= input.length) return void child.stdin.end();
      child.stdin.write(input.subarray(at, at + piece), () => setTimeout(next, 30));
      at += piece;
    };
    next();
  });
}

describe('the native forwarder on a non-blocking stdin', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let server: net.Server | null = null;
  afterEach(async () => {
    await new Promise((closed) => (server ? server.close(closed) : closed(undefined)));
    server = null;
    temp.cleanup();
  });

  it('waits for the host to finish writing and sends the event whole', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const program = buildNativeForwarderInto(dataDir);
    const bodies: Buffer[] = [];
    server = net.createServer((socket) => {
      let pending = Buffer.alloc(0);
      let decoder: ReturnType<typeof createChunkedDecoder> | null = null;
      const body: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => {
        let bytes = chunk;
        if (decoder === null) {
          pending = Buffer.concat([pending, chunk]);
          const end = headEnd(pending);
          if (end === -1) return;
          decoder = createChunkedDecoder();
          bytes = pending.subarray(end);
        }
        const step = decoder.push(bytes);
        body.push(...step.data);
        if (!step.done && step.error === null) return;
        bodies.push(Buffer.concat(body));
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      });
    });
    await new Promise<void>((listening) => server!.listen(path.join(dataDir, 'worker.sock'), listening));
    const event = Buffer.from(JSON.stringify({ session_id: 's', tool_name: 'Bash', tool_response: 'line\n'.repeat(40_000) }));
    const code = await runWithNonBlockingStdin([program, dataDir, 'gemini-cli', 'after-tool', 'settings'], event, { HOME: temp.dir });
    expect(code).toBe(0);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]!.equals(event)).toBe(true);
  });
});
