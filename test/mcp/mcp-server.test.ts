import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryAccess } from '../../src/memory/index.js';
import { createMemtraceMcpServer } from '../../src/mcp/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { seedShop } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

describe('the MCP server (in process, through the official SDK client)', () => {
  const temp = makeTempDir('memtrace-mcp-');
  let store: Store;
  let ids: Record<string, number>;
  let client: Client;
  const accesses: Array<{ via: string; access: MemoryAccess }> = [];
  beforeAll(async () => {
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    ids = seedShop(store);
    const server = createMemtraceMcpServer({
      memory: () => ({ store, access: { record: (via, access) => accesses.push({ via, access }) } }),
      clock: { now: () => 0 },
    });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client.close();
    store.close();
    temp.cleanup();
  });
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;

  it('lists search, timeline and get_observations, read-only, with input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search', 'timeline', 'get_observations']);
    for (const t of tools) expect(t.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools[0]!.inputSchema.required).toEqual(['query']);
    expect(tools[2]!.inputSchema.required).toEqual(['ids']);
  });

  it('search answers ids, types, titles and snippets, best first, and is counted as an mcp search', async () => {
    const r = await call('search', { query: 'why was VAT charged before the coupon?' });
    expect(r.isError).toBeUndefined();
    const lines = r.content[0]!.text.split('\n');
    expect(lines[0]).toMatch(/^\d+ result\(s\) for "why was VAT charged before the coupon\?", best first:$/);
    expect(lines[1]).toBe(
      `#${ids.discount} [bugfix] 2026-01-05 Checkout total ignored the discount code — computeTotal added VAT before the coupon came off; the call moved so the discount is applied first.`,
    );
    expect(r.content[0]!.text).toContain('get_observations');
    expect(accesses.at(-1)).toMatchObject({ via: 'mcp', access: { kind: 'search', results: lines.filter((l) => /^(#|summary )\d/.test(l)).length } });
  });

  it('search takes limit, project and type, and reports a query with no words as a tool error', async () => {
    expect(
      (await call('search', { query: 'checkout discount payments', limit: 1 })).content[0]!.text.split('\n').filter(
        (l) => l.startsWith('#') || l.startsWith('summary'),
      ),
    ).toHaveLength(1);
    expect((await call('search', { query: 'feed', project: '/work/blog/' })).content[0]!.text).toContain(`#${ids.blog} [feature]`);
    expect((await call('search', { query: 'discount', type: 'summary' })).content[0]!.text).toContain(`summary ${ids.summary} [session summary]`);
    const bad = await call('search', { query: '"()' });
    expect(bad).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Cannot search: the query has no words to search for (letters or digits).' }] });
    expect((await call('search', { query: 'zebra' })).content[0]!.text).toBe('No memory matches "zebra". Try other words, or fewer.');
  });

  it('refuses arguments outside the schema as a tool error', async () => {
    expect((await call('search', { query: 'x', limit: 0 })).isError).toBe(true);
    expect((await call('get_observations', { ids: [] })).isError).toBe(true);
    expect((await call('get_observations', { ids: ['1'] })).isError).toBe(true);
  });

  it('serves many sessions in one process alike: each lists the same tools and checks arguments on its own', async () => {
    // The worker serves every agent session from one process, sharing what does not change between them.
    const sessions = await Promise.all(
      [1, 2, 3].map(async () => {
        const server = createMemtraceMcpServer({ memory: () => ({ store, access: { record: () => undefined } }), clock: { now: () => 0 } });
        const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
        await server.connect(serverSide);
        const other = new Client({ name: 'test', version: '1.0.0' });
        await other.connect(clientSide);
        return other;
      }),
    );
    try {
      const lists = await Promise.all(sessions.map((s) => s.listTools()));
      for (const list of lists) expect(list).toEqual(await client.listTools());
      const refused = (await sessions[0]!.callTool({ name: 'search', arguments: { query: 'coupon', limit: 0 } })) as ToolResult;
      const answered = (await sessions[1]!.callTool({ name: 'search', arguments: { query: 'coupon', limit: 1 } })) as ToolResult;
      expect(refused.isError).toBe(true);
      expect(answered.isError).toBeUndefined();
      expect(answered.content[0]!.text).toMatch(/^1 result\(s\) for "coupon"/);
    } finally {
      await Promise.all(sessions.map((s) => s.close()));
    }
  });

  it('timeline shows neighbours in time in the same project around an observation, oldest first, marked', async () => {
    const r = await call('timeline', { observation_id: ids.webhook, before: 1, after: 1 });
    const lines = r.content[0]!.text.split('\n');
    expect(lines[1]).toContain(`summary ${ids.summary} [session summary] fix the checkout discount (session session-a)`);
    expect(lines[2]).toMatch(
      new RegExp(`^→ 2026-01-06 09:00 #${ids.webhook} \\[discovery\\] Refunds arrive through the Stripe webhook \\(session session-b\\)$`),
    );
    expect(lines[3]).toContain(`#${ids.retry} [decision]`);
    expect(r.content[0]!.text).not.toContain('RSS');
  });

  it('timeline of a session, of the latest memory, and of an unknown id', async () => {
    const session = (await call('timeline', { session_id: 'session-b', before: 0, after: 0 })).content[0]!.text;
    expect(session.split('\n').filter((l) => l.startsWith('→'))).toHaveLength(2);
    expect((await call('timeline', { before: 2 })).content[0]!.text).toContain('Blog posts get an RSS feed');
    expect(await call('timeline', { observation_id: 9999 })).toMatchObject({ isError: true, content: [{ text: 'No observation #9999 in memory.' }] });
    expect((await call('timeline', { observation_id: 1, session_id: 'x' })).isError).toBe(true);
  });

  it('get_observations opens the full narrative and facts, and names ids it does not have', async () => {
    const r = await call('get_observations', { ids: [ids.discount, 4242] });
    const text = r.content[0]!.text;
    expect(text).toContain(`#${ids.discount} [bugfix] Checkout total ignored the discount code`);
    expect(text).toContain('computeTotal added VAT before the coupon came off');
    expect(text).toContain('- computeTotal calls applyDiscount before tax');
    expect(text).toContain('Files modified: src/cart/compute-total.ts');
    expect(text).toContain('Not found: #4242 (never stored, or forgotten).');
    expect(accesses.at(-1)).toMatchObject({ via: 'mcp', access: { kind: 'fetch', observations: 1 } });
    expect((await call('get_observations', { ids: [4242] })).isError).toBe(true);
  });
});

describe('memtrace mcp over real stdio, through a symlinked bin as npm installs it', () => {
  const temp = makeTempDir('memtrace-mcp-stdio-');
  beforeAll(() => {
    const store = openStore(path.join(temp.dir, 'data', 'memtrace.db'));
    seedShop(store);
    store.close();
    fs.mkdirSync(path.join(temp.dir, 'bin'));
    fs.symlinkSync(path.join(ROOT, 'bin', 'memtrace.cjs'), path.join(temp.dir, 'bin', 'memtrace'));
  });
  afterAll(() => temp.cleanup());

  it('serves the tools, answers a search and exits when the client closes', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(temp.dir, 'bin', 'memtrace'), 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'), MEMTRACE_TELEMETRY: '0' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'smoke', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search', 'timeline', 'get_observations']);
    const r = (await client.callTool({ name: 'search', arguments: { query: 'stripe refund' } })) as ToolResult;
    expect(r.content[0]!.text).toContain('Refunds arrive through the Stripe webhook');
    const pid = transport.pid!;
    await client.close();
    // close() ends stdin and waits for the process: the server is gone.
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
