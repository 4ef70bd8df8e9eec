/**
 * `memtrace mcp` keeps the code V8 compiled for its bundle in the data dir, so the next start a
 * host waits for skips the compile (bin/code-cache.cjs). Compiled code is trusted input: it is
 * read only from a data dir nobody else can write to, and a cache that does not fit is replaced.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { seedShop } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/memtrace.cjs');

describe('the MCP server’s compiled code kept between starts', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  function dataDirWithMemory(mode: number): string {
    temp = makeTempDir('memtrace-mcp-cache-');
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    seedShop(store);
    store.close();
    fs.chmodSync(dataDir, mode);
    return dataDir;
  }

  /** One host session: start the server, list its tools, search, close. */
  async function session(dataDir: string): Promise<{ tools: string[]; text: string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cache-check', version: '1.0.0' });
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const found = (await client.callTool({ name: 'search', arguments: { query: 'stripe refund' } })) as { content: Array<{ text: string }> };
    await client.close();
    return { tools, text: found.content[0]!.text };
  }

  const cacheFiles = (dataDir: string) => {
    const dir = path.join(dataDir, 'cache');
    return fs.existsSync(dir) ? fs.readdirSync(dir).map((name) => path.join(dir, name)) : [];
  };

  it('is written (0600) after the first start and used unchanged by the next', async () => {
    const dataDir = dataDirWithMemory(0o700);
    const first = await session(dataDir);
    const [cache, ...others] = cacheFiles(dataDir);
    expect(others).toEqual([]);
    expect(path.basename(cache!)).toMatch(/^mcp\.cjs-v\d+\.\d+\.\d+-\d+-\d+\.v8$/);
    expect(fs.statSync(cache!).mode & 0o777).toBe(0o600);
    const written = fs.readFileSync(cache!);

    const second = await session(dataDir);
    expect(second).toEqual(first);
    expect(second.text).toContain('Refunds arrive through the Stripe webhook');
    // Rewritten only when V8 turns it down: the same bytes mean it was taken.
    expect(fs.readFileSync(cache!).equals(written)).toBe(true);
  });

  it('is replaced when damaged, and the server answers as usual', async () => {
    const dataDir = dataDirWithMemory(0o700);
    const first = await session(dataDir);
    const [cache] = cacheFiles(dataDir);
    fs.writeFileSync(cache!, Buffer.alloc(4096, 0x5a));
    expect(await session(dataDir)).toEqual(first);
    expect(fs.readFileSync(cache!).equals(Buffer.alloc(4096, 0x5a))).toBe(false);
  });

  it('is neither kept nor read in a data dir others can write to', async () => {
    const dataDir = dataDirWithMemory(0o770);
    const { tools } = await session(dataDir);
    expect(tools).toEqual(['search', 'timeline', 'get_observations']);
    expect(cacheFiles(dataDir)).toEqual([]);
  });
});
