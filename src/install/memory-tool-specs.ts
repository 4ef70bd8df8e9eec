import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMemtraceMcpServer } from '../mcp/index.js';
import type { MemoryToolSpec } from './in-process/pi-extension.js';

/**
 * memtrace's MCP tools as the server itself lists them (name, title, description, JSON Schema of
 * the input), for a host that takes tools but not MCP (pi): its extension registers each one and
 * calls the same server. Asked of the server in memory, so the two can never drift; the server
 * answers `tools/list` without opening a store.
 */
export async function memoryToolSpecs(): Promise<MemoryToolSpec[]> {
  const server = createMemtraceMcpServer({
    memory: () => {
      throw new Error('listing tools opens no store');
    },
    clock: { now: () => Date.now() },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'memtrace-install', version: '1' });
  await server.connect(serverSide);
  try {
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    return tools.map((tool) => ({
      name: tool.name,
      title: tool.title ?? tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema as Record<string, unknown>,
    }));
  } finally {
    await client.close();
    await server.close();
  }
}
