/**
 * The MCP bridge an agent host starts (`sh bin/memtrace-hook mcp <node>`, as install registers
 * it): the native program's bridge mode and the Perl bridge, against a stand-in worker on the data
 * dir's socket, so that what they carry, and what they do when the worker or the host misbehaves,
 * can be seen exactly. The host is a Node parent writing stdin in chunks. Where no worker is
 * there (or it fails), the Node stdio server takes over; that fallback is real here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BRIDGES, BridgeProcess, echoLines, type FakeWorker, INITIALIZE, startFakeWorker } from '../support/mcp-bridge.js';
import { makeTempDir } from '../support/temp-dir.js';

const MIB = 1024 * 1024;
/**
 * Repetitions of the 4-character unit (a two-byte character, a quote and a backslash, escaped in
 * JSON) in the big message: 1.8 MB on the wire, 9 times what a Unix socket buffers here (208 KiB)
 * and 28 times a pipe. Four times that (7 MB) cost the Perl bridge about 1.9 s of CPU and the case
 * 10 to 14 s of wall time at load 18: this size keeps it well inside its time on a loaded machine.
 */
const BIG_UNITS = MIB / 4;

describe.each(BRIDGES)('the $name MCP bridge', (bridge) => {
  let temp: ReturnType<typeof makeTempDir>;
  let fake: FakeWorker | null = null;
  let running: BridgeProcess | null = null;
  afterEach(async () => {
    running?.kill();
    await running?.exited;
    running = null;
    await fake?.close();
    fake = null;
    temp.cleanup();
  });

  async function setUp(handle: Parameters<typeof startFakeWorker>[1], env: Record<string, string> = {}, before: (dataDir: string) => void = () => {}) {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fake = await startFakeWorker(dataDir, handle);
    bridge.prepare(dataDir);
    before(dataDir);
    running = new BridgeProcess(bridge.via, { HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, ...env });
    return { dataDir, fake, bridge: running };
  }

  it('carries a message larger than the socket buffer whole, each way, from a host writing in chunks', async () => {
    const { fake, bridge: b } = await setUp(echoLines);
    const blob = `BEGIN${'é"\\x'.repeat(BIG_UNITS)}END`;
    const request = `${JSON.stringify({ jsonrpc: '2.0', id: 'big-1', method: 'tools/call', params: { blob } })}\n`;
    await b.write(request, 64 * 1024);
    const answer = await b.line();
    // Compared whole, reported by size: a failure must not print megabytes.
    expect(answer.length).toBe(JSON.stringify({ jsonrpc: '2.0', id: 'big-1', result: { echo: { blob } } }).length);
    expect(answer === JSON.stringify({ jsonrpc: '2.0', id: 'big-1', result: { echo: { blob } } })).toBe(true);
    expect(fake.received().length).toBe(Buffer.byteLength(request));
    expect(fake.received().toString() === request).toBe(true);
    expect(fake.upgrades).toBe(1);
  });

  it('exits as soon as the host closes stdin', async () => {
    const { bridge: b } = await setUp(echoLines);
    await b.send(INITIALIZE);
    expect((await b.message()).id).toBe(0);
    b.close();
    expect(await b.exited).toEqual({ code: 0, signal: null });
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('ends on %s, also while the worker owes it an answer', async (signal) => {
    const { bridge: b } = await setUp(() => undefined);
    await b.send(INITIALIZE);
    // The bridge itself (the shell exec'd it) gets the signal, as a host sends it.
    b.kill(signal);
    expect(await b.exited).toEqual({ code: null, signal });
  });

  it('answers every request a wedged worker holds with a JSON-RPC error, ids verbatim, then the Node server carries on', async () => {
    const { fake, bridge: b } = await setUp(() => undefined, { MEMTRACE_MCP_TIMEOUT_MS: '1000' });
    await b.send(INITIALIZE);
    await b.send({ jsonrpc: '2.0', id: 'a"b\\c', method: 'tools/list', params: { cursor: { nested: { id: 99 } } } });
    await b.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const errors = [await b.message(), await b.message()];
    expect(errors.map((e) => e.id)).toEqual([0, 'a"b\\c']);
    for (const e of errors) expect(e.error).toMatchObject({ code: -32000, message: "memtrace's worker did not answer in time" });
    expect(fake.upgrades).toBe(1);
    // The rest of the session: memtrace's own stdio server (it opens the same data dir itself).
    await b.send({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
    const listed = await b.message();
    expect(listed.id).toBe(7);
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toEqual(['search', 'timeline', 'get_observations']);
  });

  it('answers what a worker that hangs up still owed, then the Node server answers the rest', async () => {
    let lines = 0;
    const { bridge: b } = await setUp((stream) => {
      stream.on('data', (c: Buffer) => {
        lines += c.toString().split('\n').length - 1;
        if (lines === 1)
          stream.write(
            `${JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'memtrace', version: '0' } } })}\n`,
          );
        else stream.destroy();
      });
    });
    await b.send(INITIALIZE);
    expect((await b.message()).result.serverInfo.name).toBe('memtrace');
    await b.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(await b.message()).toMatchObject({ id: 1, error: { code: -32000, message: "memtrace's worker went away" } });
    await b.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await b.message()).result.tools).toHaveLength(3);
  });

  it('owes nothing for a request the host cancelled (the SDK answers none)', async () => {
    let lines = 0;
    const { bridge: b } = await setUp((stream) => {
      stream.on('data', (c: Buffer) => {
        lines += c.toString().split('\n').length - 1;
        // A request, its cancellation and another request arrived, none answered: hang up.
        if (lines >= 3) stream.destroy();
      });
    });
    await b.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'search', arguments: { query: 'x' } } });
    await b.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'the user pressed Esc' } });
    await b.send({ jsonrpc: '2.0', id: 'eight', method: 'tools/call', params: { name: 'search', arguments: { query: 'y' } } });
    expect(await b.message()).toMatchObject({ id: 'eight', error: { code: -32000 } });
    await b.send({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    // The next line is the Node server's answer: no error was owed for the cancelled request.
    expect((await b.message()).id).toBe(9);
  });

  it('sends nothing to a data dir that is not the user’s: the Node server answers instead', async () => {
    const { fake, bridge: b } = await setUp(echoLines, {}, (dataDir) => fs.chownSync(dataDir, 65534, 65534));
    await b.send(INITIALIZE);
    expect((await b.message()).result.serverInfo.name).toBe('memtrace');
    expect(fake.upgrades).toBe(0);
    expect(fake.received().length).toBe(0);
  });

  it('sends nothing to a socket that is not the user’s', async () => {
    const { fake, bridge: b } = await setUp(echoLines, {}, (dataDir) => fs.chownSync(path.join(dataDir, 'worker.sock'), 65534, 65534));
    await b.send(INITIALIZE);
    expect((await b.message()).result.serverInfo.name).toBe('memtrace');
    expect(fake.upgrades).toBe(0);
  });
});

describe('the MCP server where neither a native build nor perl is there', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  it('is the Node stdio server, which exits when the host closes stdin', async () => {
    temp = makeTempDir();
    const b = new BridgeProcess('node', { HOME: temp.dir, MEMTRACE_DATA_DIR: path.join(temp.dir, 'data') });
    await b.send(INITIALIZE);
    expect((await b.message()).result.serverInfo.name).toBe('memtrace');
    b.close();
    expect(await b.exited).toEqual({ code: 0, signal: null });
  });

  it('takes a message larger than a pipe’s buffer whole, written in chunks', async () => {
    temp = makeTempDir();
    const b = new BridgeProcess('node', { HOME: temp.dir, MEMTRACE_DATA_DIR: path.join(temp.dir, 'data') });
    await b.send(INITIALIZE);
    await b.message();
    // A ping the SDK parses whole (its _meta is kept as sent) and answers only once all of it came.
    await b.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { _meta: { blob: 'x'.repeat(3 * MIB) } } })}\n`);
    expect(await b.message()).toEqual({ jsonrpc: '2.0', id: 'big', result: {} });
    b.close();
    await b.exited;
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('ends on %s', async (signal) => {
    temp = makeTempDir();
    const b = new BridgeProcess('node', { HOME: temp.dir, MEMTRACE_DATA_DIR: path.join(temp.dir, 'data') });
    await b.send(INITIALIZE);
    await b.message();
    b.kill(signal);
    const exited = await b.exited;
    expect(exited.code === 0 || exited.signal === signal).toBe(true);
  });
});
