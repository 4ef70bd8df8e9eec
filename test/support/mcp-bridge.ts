/**
 * The MCP bridge as an agent host runs it (`sh bin/memtrace-hook mcp <node>`, what install
 * registers): a child whose stdin is a pipe its Node parent writes in chunks and whose stdout is
 * read line by line. And a stand-in worker on a data dir's socket that answers the bridge's
 * upgrade and then does whatever the test says with the stream (echo, stall, hang up), to see
 * exactly what the bridge carries.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { drainedOrClosed } from './drained.js';
import { buildNativeForwarderInto } from './native-forwarder.js';
import { pathWithOnly } from './tool-path.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const FORWARDER = path.join(ROOT, 'bin/memtrace-hook');

/** Which bridge the shell forwarder starts: the native build (the data dir needs it built), perl, or neither (Node). */
export type BridgePath = 'native' | 'perl' | 'node';

/** The PATH each bridge path runs with: only the tools that path may use, so no other can stand in. */
/** The two bridges a host can get (the native program where a C compiler was found, else the Perl one), each readied for a data dir. */
export const BRIDGES: ReadonlyArray<{ name: string; via: BridgePath; prepare: (dataDir: string) => unknown }> = [
  { name: 'native', via: 'native', prepare: buildNativeForwarderInto },
  { name: 'perl', via: 'perl', prepare: () => undefined },
];

export function bridgePathEnv(via: BridgePath): string {
  return via === 'perl' ? pathWithOnly(['sh', 'perl']) : pathWithOnly(['sh']);
}

export class BridgeProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private buffered = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  stderr = '';

  constructor(via: BridgePath, env: Record<string, string>) {
    this.child = spawn('sh', [FORWARDER, 'mcp', process.execPath], {
      env: { PATH: bridgePathEnv(via), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdin!.on('error', () => undefined); // a bridge that exited closed its end
    this.child.stdout!.on('data', (c: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, c]);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => {
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Writes `data` in chunks as a Node parent does, yielding between them. */
  async write(data: string | Buffer, chunkBytes = 64 * 1024): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const sink = this.child.stdin!;
    for (let at = 0; at < bytes.length; at += chunkBytes) {
      if (sink.destroyed) return;
      if (!sink.write(bytes.subarray(at, at + chunkBytes))) await drainedOrClosed(sink);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  send(message: unknown): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  /** The next whole line the bridge printed (without its newline); throws if it exits first. */
  async line(): Promise<string> {
    for (;;) {
      const end = this.buffered.indexOf(0x0a);
      if (end >= 0) {
        const line = this.buffered.subarray(0, end).toString();
        this.buffered = this.buffered.subarray(end + 1);
        return line;
      }
      if (this.child.exitCode !== null || this.child.signalCode !== null)
        throw new Error(`the bridge exited (${this.child.exitCode ?? this.child.signalCode}) before a whole line: ${this.stderr}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async message(): Promise<any> {
    return JSON.parse(await this.line());
  }

  close(): void {
    this.child.stdin!.end();
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test-host', version: '1' } },
} as const;

/** What a stand-in worker does with an upgraded stream (its first argument). */
export type StreamHandler = (stream: Duplex) => void;

export interface FakeWorker {
  /** Upgrades asked for (each a connection the bridge made). */
  upgrades: number;
  /** Every byte bridges sent after their upgrade. */
  received(): Buffer;
  close(): Promise<void>;
}

/** A stand-in worker on `dataDir`/worker.sock (the dir made 0700 and ours) that answers the upgrade with 101. */
export async function startFakeWorker(dataDir: string, handle: StreamHandler): Promise<FakeWorker> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const chunks: Buffer[] = [];
  const streams = new Set<Duplex>();
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const fake: FakeWorker = {
    upgrades: 0,
    received: () => Buffer.concat(chunks),
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams) stream.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('upgrade', (_req, stream: Duplex, head: Buffer) => {
    fake.upgrades += 1;
    streams.add(stream);
    if (head.length > 0) chunks.push(head);
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', () => undefined);
    stream.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: memtrace-mcp\r\n\r\n');
    handle(stream);
  });
  const cwd = process.cwd();
  process.chdir(dataDir);
  try {
    await new Promise<void>((resolve) => server.listen('worker.sock', resolve));
  } finally {
    process.chdir(cwd);
  }
  return fake;
}

/** Echoes every line back as a response to it: `{"jsonrpc":"2.0","id":<its id>,"result":{"echo":<its params>}}`. */
export const echoLines: StreamHandler = (stream) => {
  // Bytes until a newline: a chunk may end inside a character.
  let buffered = Buffer.alloc(0);
  stream.on('data', (c: Buffer) => {
    buffered = Buffer.concat([buffered, c]);
    for (let end = buffered.indexOf(0x0a); end >= 0; end = buffered.indexOf(0x0a)) {
      const message = JSON.parse(buffered.subarray(0, end).toString());
      buffered = buffered.subarray(end + 1);
      stream.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { echo: message.params } })}\n`);
    }
  });
};
