/**
 * `npm run bench -- share`: shared memory through a real, throw-away Postgres (Debian's server run
 * as the postgres user; see test/support/postgres-server.ts).
 *
 * - push and pull throughput (records/s) for BENCH_SHARE_RECORDS records (default 100000): one
 *   machine pushes its queue, another joins and pulls everything (what `share sync` runs, with
 *   the local store's search index kept); baselines from the same run: the same bodies written by
 *   a plain INSERT … unnest in batches of the same size (push), and the same records stored into
 *   a local store by import's own path (pull).
 * - time from an observation stored on machine A to it being searchable on machine B
 *   (p50/p95 over BENCH_SHARE_LATENCY_N, default 200), both workers running as child processes:
 *   A observes a tool event through the replay provider; B's store is polled every 5 ms.
 * - hook latency (the hook socket's POST /hook/claude-code/post-tool-use, interleaved over
 *   BENCH_SHARE_HOOK_ROUNDS rounds, default 200) on three workers in the same run: sharing off,
 *   sharing on (while a teammate pushes and it pulls), and sharing pointed at a server that
 *   accepts connections and never answers; reported as ratios to sharing off.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { importJsonl } from '../src/memory/index.js';
import { openStore } from '../src/store/index.js';
import { startChildWorker, type ChildWorker } from '../test/support/child-worker.js';
import { makeGitRepo } from '../test/support/git-repo.js';
import { startPostgresServer, SUPERUSER_PASSWORD, type PostgresServer } from '../test/support/postgres-server.js';
import { makeMachine, type Machine } from '../test/support/share-machines.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { summarize } from './stats.js';

export const name = 'share';

const RECORDS = Number(process.env.BENCH_SHARE_RECORDS ?? 100_000);
const LATENCY_N = Number(process.env.BENCH_SHARE_LATENCY_N ?? 200);
const HOOK_ROUNDS = Number(process.env.BENCH_SHARE_HOOK_ROUNDS ?? 200);
const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/memtrace.cjs');
const PUSH_BATCH = 200;

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);

function seed(machine: Machine, n: number): void {
  const insert = machine.store.db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i += 1)
      machine.store.observations.insert(
        {
          type: 'discovery',
          title: `record ${i} about the cart module`,
          subtitle: '',
          narrative: `Record ${i}: the total in ${machine.project}/src/cart.ts is rounded twice; fixed in checkout.`,
          facts: [`fact ${i}`],
          concepts: ['rounding'],
          files_read: [`${machine.project}/src/cart.ts`],
          files_modified: [],
        },
        {
          sessionId: `seed-${Math.floor(i / 50)}`,
          project: machine.project,
          sourceMessageIds: [],
          provider: 'bench',
          model: null,
          promptVersion: 'v',
          discoveryTokens: null,
          createdAt: 1_700_000_000_000 + i,
        },
      );
  });
  for (let i = 0; i < n; i += 5_000) insert(i, Math.min(n, i + 5_000));
}

async function throughput(server: PostgresServer, temp: string) {
  const a = await makeMachine(server, temp, { name: 'push-a', role: 'alice', password: 'alice-pw', project: '/home/alice/src/shop', label: 'alice@a' });
  const b = await makeMachine(server, temp, { name: 'pull-b', role: 'bob', password: 'bob-pw', project: '/home/bob/shop', label: 'bob@b' });
  seed(a, RECORDS);
  let started = performance.now();
  const pushed = await a.sync();
  const pushMs = performance.now() - started;
  started = performance.now();
  const pulled = await b.sync({ pullBatch: 500 });
  const pullMs = performance.now() - started;
  // Baseline (push): the same bodies, plain INSERT … unnest, same batch size, no memtrace around it.
  const bodies = (await server.admin<{ body: string }>("SELECT body::text AS body FROM memtrace.records WHERE kind = 'observation'", [], 'team')).rows.map(
    (r) => r.body,
  );
  await server.admin('CREATE TABLE plain_copy (id bigserial PRIMARY KEY, body jsonb NOT NULL)', [], 'team');
  const plain = new pg.Client({ connectionString: server.url('postgres', { password: SUPERUSER_PASSWORD }) });
  await plain.connect();
  started = performance.now();
  for (let i = 0; i < bodies.length; i += PUSH_BATCH)
    await plain.query('INSERT INTO plain_copy (body) SELECT b::jsonb FROM unnest($1::text[]) AS t(b)', [bodies.slice(i, i + PUSH_BATCH)]);
  const plainMs = performance.now() - started;
  await plain.end();
  // Baseline (pull): the same records into a fresh local store through import's path (index kept).
  const local = openStore(path.join(temp, 'baseline.db'));
  const lines = (b.store.db.prepare('SELECT title, narrative, facts, created_at FROM observations').all() as Array<Record<string, unknown>>).map((r) =>
    JSON.stringify({
      session_id: 's',
      project: '/p',
      type: 'discovery',
      title: r.title,
      narrative: r.narrative,
      facts: JSON.parse(String(r.facts)),
      created_at: new Date(Number(r.created_at)).toISOString(),
    }),
  );
  started = performance.now();
  await importJsonl(
    local,
    (async function* () {
      yield* lines;
    })(),
    { nowMs: Date.now() },
  );
  const importMs = performance.now() - started;
  local.close();
  a.close();
  b.close();
  return {
    records: RECORDS,
    push: {
      pushed: pushed.pushed,
      ms: Math.round(pushMs),
      records_per_s: rate(pushed.pushed, pushMs),
      plain_insert_records_per_s: rate(bodies.length, plainMs),
      ratio_to_plain_insert: Number((pushMs / plainMs).toFixed(2)),
    },
    pull: {
      pulled: pulled.pulled,
      ms: Math.round(pullMs),
      records_per_s: rate(pulled.pulled, pullMs),
      local_import_records_per_s: rate(lines.length, importMs),
      ratio_to_local_import: Number((pullMs / importMs).toFixed(2)),
    },
  };
}

/** Runs `memtrace share add` for a data dir, in the repository's directory. */
function shareAdd(dataDir: string, repo: string, url: string, label: string) {
  execFileSync(process.execPath, [BIN, 'share', 'add', url, '--name', label], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '', HOME: path.dirname(dataDir), MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' },
    stdio: 'ignore',
  });
}

function hookCall(dataDir: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(
      {
        socketPath: path.join(dataDir, 'worker.sock'),
        path: '/hook/claude-code/post-tool-use',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode && res.statusCode < 300 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function workers(server: PostgresServer, temp: string) {
  const repo = (who: string) => {
    const dir = path.join(temp, who, 'shop');
    makeGitRepo(dir);
    execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', 'git@github.com:acme/bench-shop.git']);
    return dir;
  };
  const repoA = repo('wa');
  const repoB = repo('wb');
  const repoOff = repo('woff');
  const repoDown = repo('wdown');
  const replay = path.join(temp, 'replay.jsonl');
  fs.writeFileSync(
    replay,
    Array.from({ length: 3 * LATENCY_N + 5 }, (_, i) =>
      JSON.stringify({ text: `<observation><type>discovery</type><title>latency-${i}</title><narrative>bench ${i}</narrative></observation>` }),
    ).join('\n'),
  );
  // A server that accepts connections and never answers.
  const silent = net.createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentPort = (silent.address() as net.AddressInfo).port;
  const data = (who: string) => path.join(temp, who, 'data');
  shareAdd(data('wa'), repoA, server.url('alice', { password: 'alice-pw' }), 'alice@a');
  shareAdd(data('wb'), repoB, server.url('bob', { password: 'bob-pw' }), 'bob@b');
  shareAdd(data('wdown'), repoDown, server.url('bob', { password: 'bob-pw' }), 'bob@down');
  // Now point the third at the silent server, as if the database went away after it was added.
  const shareFile = path.join(data('wdown'), 'share.json');
  fs.writeFileSync(shareFile, fs.readFileSync(shareFile, 'utf8').replace(`127.0.0.1:${server.port}`, `127.0.0.1:${silentPort}`));
  const env = (who: string, extra: Record<string, string> = {}) => ({
    MEMTRACE_DATA_DIR: data(who),
    HOME: path.join(temp, who),
    MEMTRACE_TELEMETRY: '0',
    ...extra,
  });
  const started: ChildWorker[] = [];
  try {
    // A budget far above the rounds' calls: the default daily budget would pause the observer after about 160 of them.
    const a = await startChildWorker(env('wa', { MEMTRACE_PROVIDER: 'replay', MEMTRACE_REPLAY_FILE: replay, MEMTRACE_OBSERVER_BUDGET_TOKENS: '1000000000' }));
    started.push(a);
    const b = await startChildWorker(env('wb', { MEMTRACE_PROVIDER: 'none' }));
    started.push(b);
    const off = await startChildWorker(env('woff', { MEMTRACE_PROVIDER: 'none' }));
    started.push(off);
    const down = await startChildWorker(env('wdown', { MEMTRACE_PROVIDER: 'none' }));
    started.push(down);

    // A → B: stored on A, searchable on B.
    const bDb = new Database(path.join(data('wb'), 'memtrace.db'), { readonly: true, fileMustExist: true });
    const aDb = new Database(path.join(data('wa'), 'memtrace.db'), { readonly: true, fileMustExist: true });
    const onB = bDb.prepare('SELECT 1 FROM observations WHERE title = ?');
    // The replay provider answers in its own order (a turn may take more than one reply): each
    // round waits for A's next observation, whatever its title, then for that title on B.
    const newest = aDb.prepare("SELECT id, title, created_at FROM observations WHERE id > ? AND title LIKE 'latency-%' ORDER BY id LIMIT 1");
    const latencies: number[] = [];
    let lastId = 0;
    let missed = 0;
    for (let i = 0; i < LATENCY_N; i += 1) {
      const session = `lat-${i}`;
      const post = async (route: string, body: unknown) => {
        const res = await fetch(`${a.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...a.auth }, body: JSON.stringify(body) });
        await res.arrayBuffer();
      };
      await post('/api/sessions/observations', {
        session_id: session,
        tool_use_id: `t${i}`,
        tool_name: 'Read',
        tool_input: { file_path: 'a.ts' },
        tool_response: { content: 'x' },
        cwd: repoA,
      });
      await post('/api/sessions/summarize', { session_id: session });
      const deadline = Date.now() + 20_000;
      const next = () => newest.get(lastId) as { id: number; title: string; created_at: number } | undefined;
      let stored = next();
      while (stored === undefined && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 5));
        stored = next();
      }
      if (stored === undefined) {
        missed += 1;
        continue;
      }
      lastId = stored.id;
      while (onB.get(stored.title) === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      if (Date.now() < deadline) latencies.push(Date.now() - stored.created_at);
      else missed += 1;
    }
    bDb.close();
    aDb.close();

    // Hook latency: off, on (pulling a teammate's stream meanwhile), and pointed at a silent server.
    const teammate = new pg.Client({ connectionString: server.url('alice', { password: 'alice-pw' }) });
    await teammate.connect();
    let pushing = true;
    const stream = (async () => {
      let n = 0;
      while (pushing) {
        n += 1;
        await teammate.query(
          "INSERT INTO memtrace.records (uid, project, kind, machine, label, session, created_at, body) VALUES (gen_random_uuid(), 'github.com/acme/bench-shop', 'observation', gen_random_uuid(), 'teammate', 's', now(), $1::jsonb)",
          [JSON.stringify({ type: 'discovery', title: `stream ${n}`, narrative: 'n' })],
        );
        await teammate.query("SELECT pg_notify('memtrace_share', 'github.com/acme/bench-shop')");
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const fixture = fs.readFileSync(path.join(ROOT, 'test/fixtures/claude-code/hooks/post-tool-use-read.json'), 'utf8');
    const samples: Record<'off' | 'on' | 'silent_db', number[]> = { off: [], on: [], silent_db: [] };
    const targets = { off: [data('woff'), repoOff], on: [data('wa'), repoA], silent_db: [data('wdown'), repoDown] } as const;
    for (let i = -5; i < HOOK_ROUNDS; i += 1)
      for (const key of ['off', 'on', 'silent_db'] as const) {
        const [dir, cwd] = targets[key];
        const body = fixture.replaceAll('/home/user/project', cwd).replace('toolu_e2e_read', `toolu_hook_${key}_${i + 5}`);
        const ms = await hookCall(dir, body);
        if (i >= 0) samples[key].push(ms);
      }
    pushing = false;
    await stream;
    await teammate.end();
    const pulledOn = (
      new Database(path.join(data('wa'), 'memtrace.db'), { readonly: true })
        .prepare("SELECT count(*) AS n FROM observations WHERE origin = 'teammate'")
        .get() as { n: number }
    ).n;
    const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)])) as Record<keyof typeof samples, ReturnType<typeof summarize>>;
    return {
      a_to_b_searchable: { ...summarize(latencies), asked: LATENCY_N, missed },
      hook_post_tool_use: {
        ...s,
        on_pulled_meanwhile: pulledOn,
        ratio_on_to_off_p50: Number((s.on.p50_ms / s.off.p50_ms).toFixed(2)),
        ratio_on_to_off_p95: Number((s.on.p95_ms / s.off.p95_ms).toFixed(2)),
        ratio_silent_db_to_off_p50: Number((s.silent_db.p50_ms / s.off.p50_ms).toFixed(2)),
        ratio_silent_db_to_off_p95: Number((s.silent_db.p95_ms / s.off.p95_ms).toFixed(2)),
      },
    };
  } finally {
    for (const w of started) await w.stop();
    silent.close();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-share-bench-');
  const server = await startPostgresServer();
  try {
    await server.createDatabase('team');
    await server.createRole('alice', 'alice-pw', { createOn: 'team' });
    await server.createRole('bob', 'bob-pw');
    const machines = await throughput(server, temp.dir);
    const running = await workers(server, temp.dir);
    return { loadavg: fs.readFileSync('/proc/loadavg', 'utf8').trim(), ...machines, ...running };
  } finally {
    await server.destroy();
    temp.cleanup();
  }
}
