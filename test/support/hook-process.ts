/**
 * Runs a hook the way an agent host does: a child process whose stdin is a pipe the parent writes
 * progressively (64 KB chunks, yielding between them), or a socket, a file, or a pipe closed
 * early. Through the shell forwarder (`bin/memtrace-hook`, as `memtrace install` writes it) or
 * the Node hook (`bin/memtrace.cjs hook`).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { forwarderCommand } from '../../src/install/hook-definitions.js';
import { settingsForwarder } from '../../src/install/package-root.js';
import { drainedOrClosed } from './drained.js';
import { pathWithOnly, pathWithoutPerl } from './tool-path.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FORWARDER = path.join(ROOT, 'bin/memtrace-hook');
const NODE_HOOK = path.join(ROOT, 'bin/memtrace.cjs');

/**
 * The forwarder with perl (no native build in the data dir), the forwarder on a machine without
 * perl (curl), the forwarder with its native build and neither perl nor curl on PATH (the data
 * dir needs buildNativeForwarderInto first; what it cannot send goes to the Node hook), the hook
 * command `memtrace install` writes run by a host's shell (the native build run directly, then the
 * same), the Node hook.
 */
export type HookPath = 'forwarder' | 'forwarder-curl' | 'forwarder-native' | 'installed' | 'node';

/** `dataDir`: the data dir an installed command names (install bakes it in); the others read MEMTRACE_DATA_DIR. */
export function hookCommand(via: HookPath, host: string, event: string, dataDir?: string): string[] {
  if (via === 'node') return [process.execPath, NODE_HOOK, 'hook', '--host', host, event, '--via', 'settings'];
  const forwarder = ['sh', FORWARDER, host, event, 'settings', process.execPath];
  if (via === 'forwarder') return forwarder;
  const searchPath = `PATH=${via === 'forwarder-curl' ? pathWithoutPerl() : pathWithOnly(['sh', 'cat'])}`;
  if (via !== 'installed') return ['/usr/bin/env', searchPath, ...forwarder];
  if (dataDir === undefined) throw new Error('an installed hook command names its data dir');
  return ['/usr/bin/env', searchPath, 'sh', '-c', forwarderCommand(settingsForwarder(process.execPath, ROOT, dataDir), host, event, 'settings')];
}

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface FeedOptions {
  env: Record<string, string>;
  cwd?: string;
  /** How stdin reaches the hook. */
  stdin?: 'pipe' | 'socket' | 'file';
  chunkBytes?: number;
  /** Stop writing after this many bytes and close stdin (a host that died mid-write). */
  closeAfterBytes?: number;
}

export async function runHookProcess(command: string[], input: Buffer, options: FeedOptions): Promise<HookRun> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env };
  const mode = options.stdin ?? 'pipe';
  let stdinSpec: 'pipe' | number | net.Socket = 'pipe';
  let cleanup = () => {};
  let feedSocket: net.Socket | null = null;
  if (mode === 'file') {
    const file = path.join(options.env.HOME ?? '/tmp', `hook-input-${process.pid}-${Date.now()}.json`);
    fs.writeFileSync(file, input);
    stdinSpec = fs.openSync(file, 'r');
    const fd = stdinSpec;
    cleanup = () => {
      fs.closeSync(fd);
      fs.rmSync(file, { force: true });
    };
  } else if (mode === 'socket') {
    const pair = await socketPair();
    stdinSpec = pair.childEnd;
    feedSocket = pair.parentEnd;
    cleanup = () => pair.close();
  }
  const child = spawn(command[0]!, command.slice(1), { env, cwd: options.cwd ?? process.cwd(), stdio: [stdinSpec, 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  if (mode !== 'file') {
    const sink = feedSocket ?? child.stdin!;
    sink.on('error', () => undefined); // a hook that exits early closes its end
    await feedInChunks(sink, input, options.chunkBytes ?? 64 * 1024, options.closeAfterBytes);
  }
  if (feedSocket) (stdinSpec as net.Socket).destroy();
  const code = await exited;
  cleanup();
  return { code, stdout, stderr };
}

async function feedInChunks(sink: Writable, input: Buffer, chunkBytes: number, closeAfter?: number): Promise<void> {
  const end = closeAfter ?? input.length;
  for (let at = 0; at < end; at += chunkBytes) {
    // A hook that exited without reading (it had nothing to send) closed its end: no drain comes.
    if (sink.destroyed) return;
    const chunk = input.subarray(at, Math.min(end, at + chunkBytes));
    if (!sink.write(chunk)) await drainedOrClosed(sink);
    // A host writes as its tool output arrives: give the reader a chance to see a partial pipe.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  sink.end();
}

/** Two connected Unix sockets: one end for the child's stdin, the other written by the parent. */
function socketPair(): Promise<{ childEnd: net.Socket; parentEnd: net.Socket; close(): void }> {
  const dir = fs.mkdtempSync('/tmp/mt-pair-');
  const address = path.join(dir, 's');
  return new Promise((resolve, reject) => {
    const server = net.createServer((accepted) => {
      server.close();
      resolve({
        childEnd: accepted,
        parentEnd: client,
        close: () => {
          accepted.destroy();
          client.destroy();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      });
    });
    server.once('error', reject);
    let client: net.Socket;
    server.listen(address, () => {
      client = net.connect(address);
    });
  });
}
