import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/command.js';
import { loadCommand } from '../../src/cli/registry.js';
import { createMemorySearch } from '../../src/memory/index.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { createShareLedger, readShareStatus, setShareUrl, sharingStatus } from '../../src/share/index.js';
import { captureIO } from '../support/cli-io.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { makeGitRepo } from '../support/git-repo.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';
import { observationXml } from '../support/replies.js';
import { secretSamples } from '../support/secret-samples.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

/**
 * Two running workers, each on its own machine's checkout of one repository, sharing it through a
 * real Postgres; the observer is a fake LLM that writes back what it was shown (as a careless
 * model would), so whatever a tool printed reaches an observation's text.
 */
const temp = makeTempDir('memtrace-share-worker-');
let server: PostgresServer;
let llm: FakeLlm;
let alice: Harness;
let bob: Harness;
const repoA = path.join(temp.dir, 'home', 'alice', 'src', 'shop');
const repoB = path.join(temp.dir, 'home', 'bob', 'code', 'shop');
const FAST = {
  pollMs: 1_000,
  checkMs: 100,
  idleCheckMs: 100,
  backoff: { baseMs: 200, capMs: 1_000 },
  timeouts: { connectMs: 1_000, statementMs: 2_000, queryMs: 2_000 },
};
const secret = secretSamples(11).find((s) => s.kind === 'github_token')!;

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

async function shareAdd(h: Harness, repo: string, url: string, label: string) {
  const cli = captureIO({ env: { MEMTRACE_DATA_DIR: h.dataDir, HOME: temp.dir, MEMTRACE_TELEMETRY: '0' }, cwd: repo });
  const code = await runCommand((await loadCommand('share'))!, ['add', url, '--name', label], cli.io);
  if (code !== 0) throw new Error(cli.stderr());
}

async function toolCall(h: Harness, session: string, n: number, cwd: string, output: string) {
  const res = await h.post('/api/sessions/observations', {
    session_id: session,
    tool_use_id: `toolu_${session}_${n}`,
    tool_name: 'Bash',
    tool_input: { command: 'cat .env' },
    tool_response: { stdout: output },
    cwd,
  });
  expect(res.status).toBe(202);
}

const found = (h: Harness, words: string) => createMemorySearch(h.worker.store.db).search(words);

beforeAll(async () => {
  server = await startPostgresServer();
  await server.createDatabase('team');
  await server.createRole('alice', 'alice-pw', { createOn: 'team' });
  await server.createRole('bob', 'bob-pw');
  for (const [repo, remote] of [
    [repoA, 'git@github.com:acme/shop.git'],
    [repoB, 'https://github.com/acme/shop.git'],
  ] as const) {
    makeGitRepo(repo);
    execFileSync('git', ['-C', repo, 'remote', 'add', 'origin', remote]);
  }
  llm = await startFakeLlm('anthropic', {
    kind: 'dynamic',
    respond: (body) => {
      const shown = body.messages.map((m: { content: string }) => m.content).join('\n');
      const title = /echo-[a-z0-9-]+/.exec(shown)?.[0] ?? 'echo';
      return { kind: 'text', text: observationXml({ type: 'discovery', title, narrative: xmlText(shown.slice(-3_000)) }) };
    },
  });
  const provider = () => createAnthropicProvider({ apiKey: 'k', baseUrl: llm.url });
  alice = await startHarness(provider(), { env: { MEMTRACE_TELEMETRY: '0', HOME: temp.dir }, share: FAST, dataDir: path.join(temp.dir, 'alice-data') });
  bob = await startHarness(provider(), { env: { MEMTRACE_TELEMETRY: '0', HOME: temp.dir }, share: FAST, dataDir: path.join(temp.dir, 'bob-data') });
}, 60_000);

afterAll(async () => {
  await alice?.stop();
  await bob?.stop();
  await llm?.close();
  await server?.destroy();
  temp.cleanup();
});

describe('two running workers sharing a project', () => {
  it("follows share add without a restart, and a teammate's new observation reaches local search within seconds", async () => {
    await shareAdd(alice, repoA, server.url('alice', { password: 'alice-pw' }), 'alice@laptop');
    await shareAdd(bob, repoB, server.url('bob', { password: 'bob-pw' }), 'bob@desk');
    await toolCall(alice, 'alice-1', 1, repoA, `echo-first the cart module is ${repoA}/src/cart.ts`);
    await waitFor(() => found(bob, 'echo-first').length > 0, 20_000);
    expect(found(bob, 'echo-first')[0]).toMatchObject({ origin: 'alice@laptop', project: repoB });
  });

  it('sends no secret a tool printed, and no absolute path, to the database', async () => {
    await toolCall(alice, 'alice-2', 1, repoA, `echo-secret config ${repoA}/.env holds ${secret.text}; home ${path.join(temp.dir, 'home', 'alice')}/.npmrc`);
    await waitFor(() => found(bob, 'echo-secret').length > 0, 20_000);
    const dump = await server.dumpDatabase('team');
    expect(dump).toContain('echo-secret');
    expect(dump).not.toContain(secret.secret);
    expect(dump).not.toContain(temp.dir);
    // Raw material has no place to go: the log holds a record's text fields and nothing else.
    const columns = await server.admin<{ name: string }>(
      "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = 'memtrace' AND table_name = 'records' ORDER BY ordinal_position",
      [],
      'team',
    );
    expect(columns.rows.map((c) => c.name)).toEqual([
      'seq',
      'xid',
      'uid',
      'project',
      'kind',
      'owner',
      'machine',
      'label',
      'session',
      'created_at',
      'pushed_at',
      'body',
    ]);
    const stored = JSON.stringify(bob.worker.store.db.prepare('SELECT * FROM observations').all());
    expect(stored).not.toContain(secret.secret);
  });

  it('keeps hooks answering while the database accepts and never answers, says so in one line, and drains when it is back', async () => {
    server.pause();
    try {
      await toolCall(alice, 'alice-3', 1, repoA, 'echo-silent written while the database hangs');
      await waitFor(() => found(alice, 'echo-silent').length > 0, 20_000);
      await waitFor(() => readShareStatus(alice.dataDir, path.join(alice.dataDir, 'memtrace.db'))[0]?.lastError !== null, 20_000);
      const status = sharingStatus(readShareStatus(alice.dataDir, path.join(alice.dataDir, 'memtrace.db')), Date.now());
      expect(status.line).toMatch(/cannot sync since .*\(timeout: .*\); \d+ waiting to be pushed \(kept\)/);
      // Hooks and sessions go on: every call is accepted meanwhile.
      for (let i = 2; i < 6; i += 1) await toolCall(alice, 'alice-3', i, repoA, `echo-silent-${i}`);
    } finally {
      server.resume();
    }
    await waitFor(() => found(bob, 'echo-silent').length > 0, 30_000);
    await waitFor(() => readShareStatus(alice.dataDir, path.join(alice.dataDir, 'memtrace.db'))[0]?.lastError === null, 30_000);
  });

  it('follows share remove without a restart: nothing more is pushed', async () => {
    const cli = captureIO({ env: { MEMTRACE_DATA_DIR: alice.dataDir, HOME: temp.dir, MEMTRACE_TELEMETRY: '0' }, cwd: repoA });
    expect(await runCommand((await loadCommand('share'))!, ['remove'], cli.io)).toBe(0);
    await toolCall(alice, 'alice-4', 1, repoA, 'echo-after-remove');
    await waitFor(() => found(alice, 'echo-after-remove').length > 0, 20_000);
    // Whatever pass was running when the turn was stored is over: nothing of it went out.
    await alice.worker.share.idle();
    expect(await server.dumpDatabase('team')).not.toContain('echo-after-remove');
    expect(fs.existsSync(path.join(alice.dataDir, 'share.json'))).toBe(true);
  });

  it('never lets a database that accepts and never answers hold hooks or the worker’s shutdown', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const carol = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: llm.url }), {
      env: { MEMTRACE_TELEMETRY: '0', HOME: temp.dir },
      share: FAST,
      dataDir: path.join(temp.dir, 'carol-data'),
    });
    try {
      // Shared while the database answered (as share add left it); now it only accepts connections.
      setShareUrl(carol.dataDir, repoA, `postgresql://carol:pw@127.0.0.1:${port}/team?sslmode=disable`);
      createShareLedger(carol.worker.store.db).add(
        {
          project: repoA,
          remoteProject: 'github.com/acme/shop',
          label: 'carol',
          databaseDisplay: `postgresql://carol@127.0.0.1:${port}/team`,
          databaseId: 'x',
        },
        Date.now(),
      );
      await toolCall(carol, 'carol-1', 1, repoA, 'echo-carol');
      await waitFor(() => found(carol, 'echo-carol').length > 0, 20_000);
      await waitFor(() => readShareStatus(carol.dataDir, path.join(carol.dataDir, 'memtrace.db'))[0]?.lastError?.class === 'timeout', 20_000);
      for (let i = 2; i < 5; i += 1) await toolCall(carol, 'carol-1', i, repoA, `echo-carol-${i}`);
      expect(readShareStatus(carol.dataDir, path.join(carol.dataDir, 'memtrace.db'))[0]!.pending).toBeGreaterThan(0);
    } finally {
      await carol.stop();
      silent.close();
    }
  });
});
