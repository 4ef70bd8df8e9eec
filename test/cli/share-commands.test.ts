import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/command.js';
import { loadCommand } from '../../src/cli/registry.js';
import { openStore } from '../../src/store/index.js';
import { captureIO } from '../support/cli-io.js';
import { freePort } from '../support/free-port.js';
import { makeGitRepo } from '../support/git-repo.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';
import { makeTempDir } from '../support/temp-dir.js';

const temp = makeTempDir('memtrace-share-cli-');
let server: PostgresServer;
const ALICE_PW = 'alice-Secret-pw-123';
const BOB_PW = 'bob-Secret-pw-456';

interface Seat {
  dataDir: string;
  repo: string;
  home: string;
}

function seat(name: string, remote: string): Seat {
  const root = path.join(temp.dir, name);
  const repo = path.join(root, 'work', 'shop');
  makeGitRepo(repo);
  execFileSync('git', ['-C', repo, 'remote', 'add', 'origin', remote]);
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { recursive: true });
  return { dataDir: path.join(root, 'data'), repo, home };
}

async function share(s: Seat, args: string[], env: Record<string, string> = {}, cwd = s.repo) {
  const cli = captureIO({ env: { MEMTRACE_DATA_DIR: s.dataDir, HOME: s.home, MEMTRACE_TELEMETRY: '0', ...env }, cwd });
  const code = await runCommand((await loadCommand('share'))!, args, cli.io);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

function observe(s: Seat, title: string) {
  const store = openStore(path.join(s.dataDir, 'memtrace.db'));
  try {
    store.observations.insert(
      { type: 'decision', title, subtitle: '', narrative: `${title} (see ${s.repo}/src/app.ts)`, facts: [], concepts: [], files_read: [], files_modified: [] },
      {
        sessionId: 'cli-session',
        project: s.repo,
        sourceMessageIds: [],
        provider: 't',
        model: null,
        promptVersion: 'v',
        discoveryTokens: null,
        createdAt: Date.now(),
      },
    );
  } finally {
    store.close();
  }
}

let alice: Seat;
let bob: Seat;

beforeAll(async () => {
  server = await startPostgresServer();
  await server.createDatabase('team');
  await server.createRole('alice', ALICE_PW, { createOn: 'team' });
  await server.createRole('bob', BOB_PW);
  alice = seat('alice', 'git@github.com:acme/shop.git');
  bob = seat('bob', 'https://github.com/acme/shop');
}, 60_000);

afterAll(async () => {
  await server?.destroy();
  temp.cleanup();
});

const noPassword = (r: { stdout: string; stderr: string }) => {
  expect(r.stdout + r.stderr).not.toContain(ALICE_PW);
  expect(r.stdout + r.stderr).not.toContain(BOB_PW);
};

describe('memtrace share', () => {
  it('shares a repository: creates the tables for the first member, keeps the URL private, never prints its password', async () => {
    observe(alice, 'use decimal for money');
    const r = await share(alice, ['add', server.url('alice', { password: ALICE_PW }), '--name', 'alice@laptop']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain(`sharing ${alice.repo} as github.com/acme/shop through postgresql://alice@127.0.0.1:${server.port}/team, named alice@laptop`);
    expect(r.stdout).toContain("created memtrace's tables");
    expect(r.stdout).toContain('1 record(s) of this machine queued');
    noPassword(r);
    const file = path.join(alice.dataDir, 'share.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toContain(ALICE_PW);
    expect(fs.readFileSync(path.join(alice.dataDir, 'memtrace.db')).includes(Buffer.from(ALICE_PW))).toBe(false);
  });

  it('joins from another clone of the same repository at another path, with the password from ~/.pgpass', async () => {
    fs.writeFileSync(path.join(bob.home, '.pgpass'), `127.0.0.1:${server.port}:team:bob:${BOB_PW}\n`, { mode: 0o600 });
    const r = await share(bob, ['add', server.url('bob'), '--name', 'bob@desk']);
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toContain('as github.com/acme/shop through');
    expect(r.stdout).toContain("joined the database's shared memory");
    noPassword(r);
  });

  it('syncs with counts as JSON, and the teammate finds the record in search, marked with whose it is', async () => {
    expect(await share(alice, ['sync', '--json'])).toMatchObject({ code: 0, stdout: '{"pushed":1,"pulled":0,"pending":0}\n' });
    expect(await share(bob, ['sync', '--json'])).toMatchObject({ code: 0, stdout: '{"pushed":0,"pulled":1,"pending":0}\n' });
    const search = captureIO({ env: { MEMTRACE_DATA_DIR: bob.dataDir, HOME: bob.home, MEMTRACE_TELEMETRY: '0' }, cwd: bob.repo });
    expect(await runCommand((await loadCommand('search'))!, ['decimal', '--json'], search.io)).toBe(0);
    const hit = (JSON.parse(search.stdout()) as { results: Array<Record<string, unknown>> }).results[0];
    expect(hit).toMatchObject({ title: 'use decimal for money', origin: 'alice@laptop', project: bob.repo });
    expect(hit!.snippet).toContain('src/app.ts');
    expect(hit!.snippet).not.toContain(alice.repo);
  });

  it('lists each shared project in one line, as text and JSON', async () => {
    const text = await share(bob, ['list']);
    expect(text.stdout).toMatch(/ok {2}shop \(postgresql:\/\/bob@127\.0\.0\.1:\d+\/team\): synced \d+ s ago; pushed 0, pulled 1, nothing waiting/);
    const json = JSON.parse((await share(bob, ['list', '--json'])).stdout) as { projects: Array<Record<string, unknown>> };
    expect(json.projects).toEqual([
      expect.objectContaining({
        project: bob.repo,
        remote_project: 'github.com/acme/shop',
        label: 'bob@desk',
        pushed: 0,
        pulled: 1,
        pending: 0,
        last_error: null,
        status: 'ok',
      }),
    ]);
  });

  it('says in one line what is wrong when the database cannot be used, and keeps what waits', async () => {
    const closed = await freePort();
    const other = seat('carol', 'git@github.com:acme/shop.git');
    // The first add needs the database; an unreachable one is refused, nothing changed.
    const refused = await share(other, ['add', `postgresql://alice:${ALICE_PW}@127.0.0.1:${closed}/team?sslmode=disable`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^memtrace share add: cannot use postgresql:\/\/alice@127\.0\.0\.1:\d+\/team\?sslmode=disable: .*ECONNREFUSED.*; nothing was changed\.\n$/,
    );
    noPassword(refused);
    expect((await share(other, ['list'])).stdout).toContain('no project is shared');
    const wrong = await share(other, ['add', server.url('alice', { password: 'not-it' })]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('password authentication failed');
    // A shared project whose database goes away: sync exits 1 in one line, list says it too.
    await server.stop();
    try {
      observe(alice, 'written while the database is away');
      const r = await share(alice, ['sync', '--json']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('{"pushed":0,"pulled":0,"pending":1}\n');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('what waits stays queued');
      const list = await share(alice, ['list']);
      expect(list.stdout).toMatch(/WARN {2}shop \(.*\): cannot sync since \d+ s ago \(refused: .*\); 1 waiting to be pushed \(kept\)/);
    } finally {
      await server.start();
    }
    expect(await share(alice, ['sync', '--json'])).toMatchObject({ code: 0, stdout: '{"pushed":1,"pulled":0,"pending":0}\n' });
  });

  it('keeps two different repositories apart', async () => {
    const api = seat('api', 'git@github.com:acme/shop-api.git');
    const r = await share(api, ['add', server.url('alice', { password: ALICE_PW })]);
    expect(r.stdout).toContain('as github.com/acme/shop-api through');
    expect(await share(api, ['sync', '--json'])).toMatchObject({ stdout: '{"pushed":0,"pulled":0,"pending":0}\n' });
  });

  it('refuses what it cannot use with a usage error or a one-line reason', async () => {
    expect(await share(alice, ['add', 'mysql://x'])).toMatchObject({ code: 2, stderr: expect.stringContaining('not a Postgres URL') });
    expect(await share(alice, ['add'])).toMatchObject({ code: 2 });
    const outside = path.join(temp.dir, 'not-a-repo');
    fs.mkdirSync(outside);
    const r = await share(alice, ['add', server.url('alice', { password: ALICE_PW })], {}, outside);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not in a git repository');
    expect(await share(alice, ['remove'], {}, outside)).toMatchObject({ code: 1, stderr: expect.stringContaining('is not shared') });
    expect((await share(alice, ['--help'])).stdout).toContain('commands:');
    expect((await share(alice, ['sync', '--help'])).stdout).toContain('usage: memtrace share sync');
  });

  it("stops sharing with --forget-remote: this machine's records leave the database, the teammate's copy goes at their next pull", async () => {
    const r = await share(alice, ['remove', '--forget-remote']);
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toContain('2 record(s) of this machine withdrawn from the database');
    expect((await share(alice, ['list'])).stdout).toContain('no project is shared');
    expect(fs.readFileSync(path.join(alice.dataDir, 'share.json'), 'utf8')).not.toContain(ALICE_PW);
    const dump = await server.dumpDatabase('team');
    expect(dump).not.toContain('use decimal for money');
    await share(bob, ['sync']);
    const store = openStore(path.join(bob.dataDir, 'memtrace.db'));
    try {
      expect(store.db.prepare("SELECT count(*) AS n FROM observations WHERE origin = 'alice@laptop'").get()).toEqual({ n: 0 });
    } finally {
      store.close();
    }
  });
});
