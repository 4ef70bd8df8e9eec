import { runMcpStdio } from '../../mcp/stdio-entry.js';
import { parseCommandArgs, type Command } from '../command.js';
const USAGE = `usage: memtrace mcp

A Model Context Protocol server on stdin/stdout for coding agents, with three read-only tools:
  search            {query, limit?, project?, type?}  ids, titles and snippets, best first
  timeline          {observation_id? | session_id?, before?, after?}  neighbours in time
  get_observations  {ids}  the full observations
It reads the memory of MEMTRACE_DATA_DIR (default ~/.memtrace) and needs no running worker.
'memtrace install' registers the server "memtrace" (Claude Code's tools mcp__memtrace__search,
…) as the bridge 'sh <package>/bin/memtrace-hook mcp <node>', which carries the host's messages
to the same server inside the running worker and starts this command when there is no worker;
the memtrace plugin carries the bridge too.

options:
  -h, --help      show this help`;

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'a stdio MCP server with the tools search, timeline, get_observations',
  usage: USAGE,
  async run(args, io) {
    parseCommandArgs(args, {});
    return runMcpStdio(io);
  },
};
