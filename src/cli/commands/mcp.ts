import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { systemClock } from '../../clock.js';
import { createMemtraceMcpServer } from '../../mcp/index.js';
import { EXIT_OK, parseCommandArgs, type Command } from '../command.js';
import { openMemoryStore } from '../memory-store.js';
import { waitForStopSignal } from '../stop-signal.js';

const USAGE = `usage: memtrace mcp

A Model Context Protocol server on stdin/stdout for coding agents, with three read-only tools:
  search            {query, limit?, project?, type?}  ids, titles and snippets, best first
  timeline          {observation_id? | session_id?, before?, after?}  neighbours in time
  get_observations  {ids}  the full observations
'memtrace install' registers it for Claude Code as the server "memtrace" (tools
mcp__memtrace__search, …); the memtrace plugin carries it too. It reads the memory of
MEMTRACE_DATA_DIR (default ~/.memtrace) and needs no running worker.

options:
  -h, --help      show this help`;

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'a stdio MCP server with the tools search, timeline, get_observations',
  usage: USAGE,
  async run(args, io) {
    parseCommandArgs(args, {});
    const memory = openMemoryStore(io, { create: true })!;
    const server = createMemtraceMcpServer({ store: memory.store, access: memory.access, clock: systemClock });
    const stdin = io.stdin as Readable;
    const transport = new StdioServerTransport(stdin, io.stdout as Writable);
    // Serves until the client closes stdin (the host ended the session) or a signal stops it.
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
      memory.close();
    }
    return EXIT_OK;
  },
};
