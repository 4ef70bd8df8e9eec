import os from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { systemClock } from '../clock.js';
import { loadWorkerConfig } from '../config.js';
import { openMemoryStore, type MemoryStore } from '../memory/memory-store.js';
import { waitForStopSignal } from '../stop-signal.js';
import { createMemtraceMcpServer } from './server.js';

/** What bin/memtrace.cjs (or `memtrace mcp`) hands the MCP entry: the process's streams and environment. */
interface McpStdio {
  stdin: NodeJS.ReadableStream;
  stdout: { write(chunk: string): unknown; on?(event: 'error', listener: (error: Error) => void): unknown };
  env: Record<string, string | undefined>;
}

/** The configured data dir's store; a bad variable fails the tool call with the reason. */
function openConfiguredMemory(env: Record<string, string | undefined>): MemoryStore {
  const loaded = loadWorkerConfig(env, env.HOME || os.homedir());
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  return openMemoryStore(loaded.config, env, { create: true })!;
}

/**
 * `memtrace mcp` over stdio. An agent host starts its MCP servers with every session and waits
 * for them to answer `initialize` before it sends the first request, so this entry is bundled on
 * its own (bin/memtrace.cjs loads it without the CLI) and opens the database only when a tool is
 * first called. Serves until the host closes stdin or a signal stops it.
 */
export async function runMcpStdio(io: McpStdio): Promise<number> {
  let memory: MemoryStore | null = null;
  const server = createMemtraceMcpServer({
    memory: () => (memory ??= openConfiguredMemory(io.env)),
    clock: systemClock,
  });
  const stdin = io.stdin as Readable;
  const transport = new StdioServerTransport(stdin, io.stdout as Writable);
  const ended = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
    // The host went away with answers still to write (EPIPE): the session is over, and that is
    // no error of this process's.
    io.stdout.on?.('error', () => resolve());
    transport.onclose = resolve;
  });
  try {
    await server.connect(transport);
    await Promise.race([ended, waitForStopSignal()]);
  } finally {
    await server.close().catch(() => undefined);
    (memory as MemoryStore | null)?.close();
    // Whatever still comes on stdin has no one to answer it; reading on would keep the process alive.
    stdin.destroy();
  }
  return 0;
}
