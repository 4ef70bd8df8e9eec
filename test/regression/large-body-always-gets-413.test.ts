import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector, type RunningCollector } from '../../src/fleet/collector/index.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/**
 * Bug (issue 17, item 12): a 1.2 MB POST was answered 413 and its connection closed while the
 * client was still writing. A client that writes its whole body before it reads (Python's
 * http.client, many scripts, a hook under load) then got EPIPE and never saw the answer: "too
 * large" looked like "worker gone".
 */
const TRIES = 50;

/**
 * One POST on a fresh connection from a client that writes every byte before it reads anything.
 * Resolves with the status line it read, or the socket error it got instead.
 */
function postThenRead(port: number, route: string, body: Buffer, headers: Record<string, string>, chunked: boolean): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    let answer = '';
    let settled = false;
    const settle = (value: string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(value);
    };
    socket.on('data', (data) => {
      answer += data.toString('latin1');
      const statusLine = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (statusLine && answer.includes('\r\n\r\n')) settle(statusLine[1]!);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message));
    socket.on('close', () => settle(`closed without an answer`));
    const head = Object.entries({
      host: `127.0.0.1:${port}`,
      'content-type': 'application/json',
      ...headers,
      ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }),
    })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`POST ${route} HTTP/1.1\r\n${head}\r\n`);
    // 64 KiB per write, each after the last was handed to the kernel and a turn of the event loop:
    // a client fed from a pipe. It is still writing when a server that answers early closes.
    let offset = 0;
    const writeNext = () => {
      if (offset >= body.length) return void socket.write(chunked ? '0\r\n\r\n' : '', () => socket.resume());
      const chunk = body.subarray(offset, offset + 64 * 1024);
      offset += chunk.length;
      const framed = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
      socket.write(framed, (error) => {
        if (!error) setTimeout(writeNext, 0);
      });
    };
    writeNext();
  });
}

describe('a body over the limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"text":""}'] }));
  });
  afterAll(() => h.stop());

  it.each([false, true])(`gets its 413 ${TRIES} times in a row, and the next request on a fresh connection succeeds (chunked: %s)`, async (chunked) => {
    const big = Buffer.from(JSON.stringify({ ...toolEvent('big', 1), tool_response: 'x'.repeat(1_200_000) }));
    const auth = { authorization: `Bearer ${h.token}` };
    const answers: string[] = [];
    for (let i = 0; i < TRIES; i += 1) answers.push(await postThenRead(h.worker.port, '/api/sessions/observations', big, auth, chunked));
    expect(answers).toEqual(Array(TRIES).fill('413'));
    const small = Buffer.from(JSON.stringify(toolEvent('big', chunked ? 3 : 2)));
    expect(await postThenRead(h.worker.port, '/api/sessions/observations', small, auth, chunked)).toBe('202');
  });

  it('gets its 401 too when it carries no token: every early refusal reads the body first', async () => {
    const big = Buffer.from(JSON.stringify({ ...toolEvent('big', 4), tool_response: 'x'.repeat(900_000) }));
    const answers: string[] = [];
    for (let i = 0; i < 10; i += 1) answers.push(await postThenRead(h.worker.port, '/api/sessions/observations', big, {}, i % 2 === 1));
    expect(answers).toEqual(Array(10).fill('401'));
  });

  it('gets its 413 from the collector too, which shares the edge', async () => {
    const temp = makeTempDir();
    let collector: RunningCollector | undefined;
    try {
      collector = await startCollector({ dbFile: path.join(temp.dir, 'collector.db'), port: 0 });
      const big = Buffer.from(JSON.stringify({ api_key: 'k', batch: [{ event: 'x', properties: { pad: 'x'.repeat(6 * 1024 * 1024) } }] }));
      const answers: string[] = [];
      for (let i = 0; i < 10; i += 1) answers.push(await postThenRead(collector.port, '/batch/', big, {}, i % 2 === 1));
      expect(answers).toEqual(Array(10).fill('413'));
      expect(await collector.store.count()).toBe(0);
    } finally {
      await collector?.close();
      temp.cleanup();
    }
  });
});
