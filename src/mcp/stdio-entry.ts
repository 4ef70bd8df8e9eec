import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { systemClock } from '../clock.js';
import type { CliIO } from '../cli/command.js';
import { openMemoryStore, type MemoryStore } from '../cli/memory-store.js';
import { waitForStopSignal } from '../cli/stop-signal.js';
import { createMemtraceMcpServer } from './server.js';

/**
 * `memtrace mcp` over stdio. An agent host starts its MCP servers with every session and waits
 * for them to answer `initialize` before it sends the first request, so this entry is bundled on
 * its own (bin/memtrace.cjs loads it without the CLI) and opens the database only when a tool is
 * first called. Serves until the host closes stdin or a signal stops it.
 */
export async function runMcpStdio(io: Pick<CliIO, 'stdin' | 'stdout' | 'env' | 'cwd'> & { stderr: CliIO['stderr'] }): Promise<number> {
  let memory: MemoryStore | null = null;
  const server = createMemtraceMcpServer({
    memory: () => (memory ??= openMemoryStore({ ...io, stderr: io.stderr }, { create: true })!),
    clock: systemClock,
  });
  const stdin = io.stdin as Readable;
  const transport = new StdioServerTransport(stdin, io.stdout as Writable);
  const ended = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
    transport.onclose = resolve;
  });
  try {
    await server.connect(transport);
    await Promise.race([ended, waitForStopSignal()]);
  } finally {
    await server.close().catch(() => undefined);
    (memory as MemoryStore | null)?.close();
  }
  return 0;
}
