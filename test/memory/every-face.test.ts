/**
 * Issue 29 through every face of the memory: words inside CJK text and a worktree's path as
 * `--project` work the same in `memtrace search`, the MCP tools and the viewer.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { silentLogger } from '../../src/log.js';
import { createMemtraceMcpServer } from '../../src/mcp/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createViewerApp, createViewerAuth } from '../../src/viewer/index.js';
import { captureIO } from '../support/cli-io.js';
import { makeRepoWithWorktrees } from '../support/git-worktrees.js';
import { addObservation } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('search in every script and every checkout, from every face', () => {
  const temp = makeTempDir('memtrace-faces-');
  const dataDir = path.join(temp.dir, 'data');
  let repo: ReturnType<typeof makeRepoWithWorktrees>;
  let store: Store;
  let ids: { ja: number; zh: number; other: number };
  beforeAll(() => {
    repo = makeRepoWithWorktrees(path.join(temp.dir, 'code'));
    store = openStore(path.join(dataDir, 'memtrace.db'));
    store.sessions.init({ sessionId: 's-wt', project: repo.main, checkout: repo.feature, nowMs: 1 });
    ids = {
      ja: addObservation(store, {
        sessionId: 's-wt',
        project: repo.main,
        title: 'JWT認証ミドルウェアの有効期限チェック',
        narrative: 'expクレームを検証する。',
      }),
      zh: addObservation(store, { sessionId: 's-wt', project: repo.main, title: '为网关添加认证中间件', narrative: '中间件在转发之前校验令牌。' }),
      other: addObservation(store, { project: '/work/elsewhere', title: '認証 in another project' }),
    };
  });
  afterAll(() => {
    store.close();
    temp.cleanup();
  });

  it('memtrace search', async () => {
    const search = async (...args: string[]) => {
      const c = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', HOME: temp.dir } });
      expect(await main(['search', '--json', ...args], c.io)).toBe(0);
      return (JSON.parse(c.stdout()) as { results: Array<{ id: number }> }).results.map((r) => r.id);
    };
    expect(await search('--', '中间件')).toEqual([ids.zh]);
    expect(await search('ミドルウェア')).toEqual([ids.ja]);
    expect((await search('認証')).sort()).toEqual([ids.ja, ids.other].sort());
    expect(await search('--project', repo.fix, '認証')).toEqual([ids.ja]);
    expect(await search('--project', `${repo.feature}/`, '认证')).toEqual([ids.zh]);
  });

  it('the MCP search tool', async () => {
    const server = createMemtraceMcpServer({ memory: () => ({ store, access: { record: () => undefined } }), clock: { now: () => 0 } });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const text = async (args: Record<string, unknown>) =>
        ((await client.callTool({ name: 'search', arguments: args })) as { content: Array<{ text: string }> }).content[0]!.text;
      expect(await text({ query: '中间件' })).toContain(`#${ids.zh}`);
      expect(await text({ query: '認証', project: repo.feature })).not.toContain(`#${ids.other}`);
      expect(await text({ query: '認証', project: repo.feature })).toContain(`#${ids.ja}`);
    } finally {
      await client.close();
    }
  });

  it('the viewer', async () => {
    const auth = createViewerAuth(() => `token-${'y'.repeat(40)}`);
    const app = createViewerApp({
      store,
      auth,
      access: { record: () => undefined },
      port: () => 41299,
      clock: { now: () => 0 },
      nonce: () => 'n',
      log: silentLogger,
    });
    const host = { host: '127.0.0.1:41299' };
    const exchanged = await app.request(`/?token=${auth.urlToken}`, { headers: host });
    const cookie = exchanged.headers.get('set-cookie')!.split(';')[0]!;
    const json = (await (await app.request(`/api/search?q=${encodeURIComponent('ミドルウェア')}`, { headers: { ...host, cookie } })).json()) as {
      results: Array<{ id: number }>;
    };
    expect(json.results.map((r) => r.id)).toEqual([ids.ja]);
    const page = await (await app.request(`/observation/${ids.ja}`, { headers: { ...host, cookie } })).text();
    expect(page).toContain(`checkout ${repo.feature}`);
  });
});
