import type { Duplex } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMemtraceMcpServer, type McpDeps } from './server.js';

/**
 * One MCP session on a byte stream: a connection the worker took on its socket from the bridge
 * (bin/memtrace-hook mcp). The stream carries exactly what a stdio server reads and writes,
 * newline-delimited JSON-RPC, so the SDK's own stdio transport serves it: the protocol is the
 * SDK's end to end, and the bridge only carries bytes. Resolves when the session is over (the
 * client went away, or `close` was called); the stream is then destroyed.
 */
export interface McpStreamSession {
  done: Promise<void>;
  close(): void;
}

export async function serveMcpStream(stream: Duplex, deps: McpDeps): Promise<McpStreamSession> {
  const server = createMemtraceMcpServer(deps);
  const transport = new StdioServerTransport(stream, stream);
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    void server
      .close()
      .catch(() => undefined)
      .finally(() => {
        stream.destroy();
        finish();
      });
  };
  stream.once('end', close);
  stream.once('close', close);
  // A reset from a bridge killed mid-write: the session is over, nothing else to say.
  stream.on('error', close);
  await server.connect(transport);
  return { done, close };
}
