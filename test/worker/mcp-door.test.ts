/**
 * The MCP server inside the worker, reached as an agent host reaches it: the official SDK client
 * spawns the installed bridge (`sh bin/memtrace-hook mcp <node>`, the native build in the data
 * dir), which carries its JSON-RPC to the worker's socket. The tools answer from the worker's own
 * store; a stopped worker neither hangs nor strands the session.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { noProvider } from '../../src/providers/index.js';
import { bridgePathEnv, FORWARDER, type BridgePath } from '../support/mcp-bridge.js';
import { addObservation, seedShop } from '../support/memory-fixtures.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };
const MIB = 1024 * 1024;

async function connect(dataDir: string, via: BridgePath = 'native'): Promise<Client> {
  const transport = new StdioClientTransport({
    command: 'sh',
    args: [FORWARDER, 'mcp', process.execPath],
    env: { PATH: bridgePathEnv(via), HOME: dataDir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** What the worker's socket answers to a request that asks to upgrade to `protocol` at `route`. */
function askUpgrade(dataDir: string, route: string, protocol: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath: path.join(dataDir, 'worker.sock'), path: route, headers: { connection: 'Upgrade', upgrade: protocol } });
    request.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    request.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}

function postHook(dataDir: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        socketPath: path.join(dataDir, 'worker.sock'),
        path: '/hook/claude-code/post-tool-use',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe("the worker's MCP server, through the bridge", () => {
  let h: Harness | null = null;
  let client: Client | null = null;
  let temp: ReturnType<typeof makeTempDir> | null = null;
  afterEach(async () => {
    await client?.close();
    client = null;
    await h?.stop();
    h = null;
    temp?.cleanup();
    temp = null;
  });

  it.each(['native', 'perl'] as const)('answers search and get_observations from the worker’s store (%s bridge)', async (via) => {
    h = await startHarness(noProvider());
    const ids = seedShop(h.worker.store);
    if (via === 'native') buildNativeForwarderInto(h.dataDir);
    client = await connect(h.dataDir, via);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search', 'timeline', 'get_observations']);
    const found = (await client.callTool({ name: 'search', arguments: { query: 'discount before tax' } })) as ToolResult;
    expect(found.content[0]!.text).toContain(`#${ids.discount} [bugfix]`);
    const opened = (await client.callTool({ name: 'get_observations', arguments: { ids: [ids.discount] } })) as ToolResult;
    expect(opened.content[0]!.text).toContain('computeTotal calls applyDiscount before tax');
    // One session is open on the worker while the client is connected.
    expect(client.getServerVersion()?.name).toBe('memtrace');
  });

  it('carries an answer larger than the socket buffer whole', async () => {
    h = await startHarness(noProvider());
    const store = h.worker.store;
    const ids = store.db.transaction(() =>
      Array.from({ length: 40 }, (_, i) => addObservation(store, { title: `Large note ${i}`, narrative: `N${i}:${'y'.repeat(64 * 1024)}:END${i}` })),
    )();
    buildNativeForwarderInto(h.dataDir);
    client = await connect(h.dataDir);
    const opened = (await client.callTool({ name: 'get_observations', arguments: { ids } })) as ToolResult;
    const text = opened.content[0]!.text;
    expect(text.length).toBeGreaterThan(2 * MIB);
    for (let i = 0; i < 40; i += 1) expect(text.includes(`N${i}:${'y'.repeat(64 * 1024)}:END${i}`), `observation ${i}`).toBe(true);
  });

  it('takes a request larger than the socket buffer whole', async () => {
    h = await startHarness(noProvider());
    buildNativeForwarderInto(h.dataDir);
    client = await connect(h.dataDir);
    // The SDK answers a ping only once it has parsed all of it.
    const answer = await client.request({ method: 'ping', params: { _meta: { blob: 'x'.repeat(3 * MIB) } } }, EmptyResultSchema);
    expect(answer).toEqual({});
    expect(h.log.records.some((r) => r.message === 'an MCP session opened')).toBe(true);
  });

  it('stops without waiting for an open session, and the session carries on with the Node server', async () => {
    temp = makeTempDir();
    h = await startHarness(noProvider(), { dataDir: path.join(temp.dir, 'data') });
    const ids = seedShop(h.worker.store);
    buildNativeForwarderInto(h.dataDir);
    client = await connect(h.dataDir);
    await client.listTools();
    await h.stop();
    h = null;
    const found = (await client.callTool({ name: 'search', arguments: { query: 'discount before tax' } })) as ToolResult;
    expect(found.content[0]!.text).toContain(`#${ids.discount} [bugfix]`);
  });

  it('refuses an upgrade it does not serve, and still takes hooks on the same socket', async () => {
    h = await startHarness(noProvider());
    expect(await askUpgrade(h.dataDir, '/mcp', 'websocket')).toBe(404);
    expect(await askUpgrade(h.dataDir, '/other', 'memtrace-mcp')).toBe(404);
    expect(await askUpgrade(h.dataDir, '/mcp', 'memtrace-mcp')).toBe(101);
    const event = JSON.parse(fs.readFileSync('test/fixtures/claude-code/hooks/post-tool-use-bash.json', 'utf8')) as Record<string, unknown>;
    const status = await postHook(h.dataDir, JSON.stringify({ ...event, tool_use_id: 'toolu_door' }));
    expect(status).toBe(202); // queued
    expect(h.worker.store.db.prepare('SELECT count(*) AS n FROM queue WHERE tool_use_id = ?').get('toolu_door')).toEqual({ n: 1 });
  });

  it('with no worker, the bridge hands the session to the Node stdio server: tools answer in the first turn', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    buildNativeForwarderInto(dataDir);
    client = await connect(dataDir);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search', 'timeline', 'get_observations']);
    const found = (await client.callTool({ name: 'search', arguments: { query: 'anything' } })) as ToolResult;
    expect(found.content[0]!.text).toContain('No memory matches');
  });
});
