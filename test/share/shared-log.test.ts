import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyShareFailure } from '../../src/share/failure.js';
import { countAfter, pullBatch, pushBatch, type Cursor } from '../../src/share/remote-log.js';
import { ensureRemoteSchema } from '../../src/share/remote-schema.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';

const PUSHER = path.resolve('test/support/share-pusher.mjs');
let server: PostgresServer;
const clients: pg.Client[] = [];

async function connect(role: string, password: string, database = 'team'): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: server.url(role, { password, database }) });
  await client.connect();
  clients.push(client);
  return client;
}

const record = (uid = randomUUID()) => ({
  uid,
  kind: 'observation' as const,
  session: 's',
  createdAtMs: 1_700_000_000_000,
  body: JSON.stringify({ type: 'discovery', title: 't', narrative: 'n' }),
});

beforeAll(async () => {
  server = await startPostgresServer();
  await server.createDatabase('team');
  await server.createRole('alice', 'alice-pw', { createOn: 'team' });
  await server.createRole('bob', 'bob-pw');
  await ensureRemoteSchema(await connect('alice', 'alice-pw'));
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => {});
  await server?.destroy();
});

/** Every row of a project from the start, by the pull's own rule. */
async function pullAll(client: pg.Client, project: string, cursor: Cursor = { xid: '0', seq: 0 }) {
  const uids: string[] = [];
  for (;;) {
    const rows = await pullBatch(client, project, cursor, 500);
    for (const r of rows) uids.push(r.uid);
    if (rows.length === 0) return { uids, cursor };
    cursor = { xid: rows.at(-1)!.xid, seq: rows.at(-1)!.seq };
  }
}

describe('the shared log in a real Postgres', () => {
  it('delivers every record of concurrent pushers exactly once to a puller that pulls while they push', async () => {
    const project = `concurrent-${randomUUID()}`;
    const pushers = 4;
    const each = 150;
    const puller = await connect('bob', 'bob-pw');
    const naive = await connect('bob', 'bob-pw');
    const seen: string[] = [];
    const naiveSeen: string[] = [];
    let cursor: Cursor = { xid: '0', seq: 0 };
    let naiveSeq = 0;
    let done = false;
    const children = Array.from(
      { length: pushers },
      (_, i) =>
        new Promise<string[]>((resolve, reject) =>
          execFile(
            process.execPath,
            ['--import', 'tsx', PUSHER, server.url(i % 2 === 0 ? 'alice' : 'bob', { password: i % 2 === 0 ? 'alice-pw' : 'bob-pw' }), project, String(each)],
            { encoding: 'utf8', timeout: 120_000 },
            (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as string[])),
          ),
        ),
    );
    const all = Promise.all(children).finally(() => {
      done = true;
    });
    // Pull continuously while they push: the xid rule, and beside it the trap (rows above the last seq seen).
    while (!done) {
      const rows = await pullBatch(puller, project, cursor, 500);
      for (const r of rows) seen.push(r.uid);
      if (rows.length > 0) cursor = { xid: rows.at(-1)!.xid, seq: rows.at(-1)!.seq };
      const plain = await naive.query<{ uid: string; seq: string }>(
        'SELECT uid::text, seq::text FROM memtrace.records WHERE project = $1 AND seq > $2 ORDER BY seq',
        [project, naiveSeq],
      );
      for (const r of plain.rows) naiveSeen.push(r.uid);
      if (plain.rows.length > 0) naiveSeq = Number(plain.rows.at(-1)!.seq);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const pushed = (await all).flat();
    seen.push(...(await pullAll(puller, project, cursor)).uids);
    const expected = new Set(pushed);
    const missing = [...expected].filter((u) => !seen.includes(u)).length;
    const duplicated = seen.length - new Set(seen).size;
    const naiveMissing = [...expected].filter((u) => !naiveSeen.includes(u)).length;
    // The figures for the closing note (the naive cursor's losses vary run to run; the pull's must be 0).
    console.log(JSON.stringify({ pushers, records: pushed.length, missing, duplicated, naive_seq_cursor_missing: naiveMissing }));
    expect(pushed).toHaveLength(pushers * each);
    expect({ missing, duplicated }).toEqual({ missing: 0, duplicated: 0 });
    expect(await countAfter(puller, project, cursor)).toBe(0);
  }, 180_000);

  it('stores nothing twice when a batch is pushed again', async () => {
    const alice = await connect('alice', 'alice-pw');
    const project = `retry-${randomUUID()}`;
    const batch = { project, machine: randomUUID(), label: 'alice@laptop', records: [record(), record()], withdrawals: [] };
    expect(await pushBatch(alice, batch)).toEqual({ inserted: 2, withdrawn: 0 });
    expect(await pushBatch(alice, batch)).toEqual({ inserted: 0, withdrawn: 0 });
    expect((await pullAll(alice, project)).uids).toHaveLength(2);
  });

  it("lets no member delete, change or withdraw another member's records, even with raw SQL", async () => {
    const alice = await connect('alice', 'alice-pw');
    const bob = await connect('bob', 'bob-pw');
    const project = `rls-${randomUUID()}`;
    const mine = record();
    await pushBatch(alice, { project, machine: randomUUID(), label: 'alice@laptop', records: [mine], withdrawals: [] });
    const attempts: Record<string, string> = {
      delete: `DELETE FROM memtrace.records WHERE project = '${project}'`,
      update: `UPDATE memtrace.records SET body = '{}' WHERE project = '${project}'`,
      forge_owner: `INSERT INTO memtrace.records (uid, project, kind, machine, label, session, created_at, body, owner) VALUES (gen_random_uuid(), '${project}', 'observation', gen_random_uuid(), 'alice@laptop', 's', now(), '{"type":"other","title":"x","narrative":"x"}', 'alice')`,
      forge_withdrawal: `INSERT INTO memtrace.records (uid, project, kind, machine, label, session, created_at, body) VALUES ('${mine.uid}', '${project}', 'withdrawn', gen_random_uuid(), 'x', '', now(), '{}')`,
      truncate: 'TRUNCATE memtrace.records',
      disable_rls: 'ALTER TABLE memtrace.records DISABLE ROW LEVEL SECURITY',
      drop: 'DROP TABLE memtrace.records',
    };
    const outcome: Record<string, string> = {};
    for (const [name, sql] of Object.entries(attempts)) {
      try {
        const result = await bob.query(sql);
        outcome[name] = `ran, ${result.rowCount ?? 0} row(s)`;
      } catch (error) {
        outcome[name] = `refused (${(error as { code?: string }).code})`;
      }
    }
    console.log(JSON.stringify({ what_bob_tried_on_alices_records: outcome }));
    expect(outcome).toEqual({
      delete: 'ran, 0 row(s)',
      update: 'refused (42501)',
      // The row is stored as bob's: the table's trigger stamps the role that pushed it.
      forge_owner: 'ran, 1 row(s)',
      forge_withdrawal: 'refused (23505)',
      truncate: 'refused (42501)',
      disable_rls: 'refused (42501)',
      drop: 'refused (42501)',
    });
    const rows = await alice.query<{ owner: string; kind: string; uid: string }>(
      'SELECT owner::text, kind, uid::text FROM memtrace.records WHERE project = $1 ORDER BY seq',
      [project],
    );
    expect(rows.rows).toEqual([
      { owner: 'alice', kind: 'observation', uid: mine.uid },
      { owner: 'bob', kind: 'observation', uid: expect.any(String) },
    ]);
    // A withdrawal through memtrace's own path does nothing to another's record.
    expect(await pushBatch(bob, { project, machine: randomUUID(), label: 'bob', records: [], withdrawals: [mine.uid] })).toEqual({ inserted: 0, withdrawn: 0 });
    // The owner withdraws it: the text leaves, a tombstone with the same key stays, and a late retry cannot bring it back.
    expect(await pushBatch(alice, { project, machine: randomUUID(), label: 'alice@laptop', records: [], withdrawals: [mine.uid] })).toEqual({
      inserted: 0,
      withdrawn: 1,
    });
    expect(await pushBatch(alice, { project, machine: randomUUID(), label: 'alice@laptop', records: [mine], withdrawals: [] })).toEqual({
      inserted: 0,
      withdrawn: 0,
    });
    const after = await alice.query<{ kind: string; body: unknown }>('SELECT kind, body FROM memtrace.records WHERE uid = $1', [mine.uid]);
    expect(after.rows).toEqual([{ kind: 'withdrawn', body: {} }]);
  });

  it('joins tables that are there, and refuses a role that may not create them or a newer schema', async () => {
    await server.createDatabase('fresh');
    const bobFresh = await connect('bob', 'bob-pw', 'fresh');
    const refused = await ensureRemoteSchema(bobFresh).catch((error: unknown) => error);
    expect(classifyShareFailure(refused).class).toBe('permission');
    const bob = await connect('bob', 'bob-pw');
    expect(await ensureRemoteSchema(bob)).toMatchObject({ created: false });
    await server.createDatabase('newer');
    await server.admin('GRANT CREATE ON DATABASE newer TO alice');
    const alice = await connect('alice', 'alice-pw', 'newer');
    expect(await ensureRemoteSchema(alice)).toMatchObject({ created: true });
    await server.admin("UPDATE memtrace.meta SET value = '2' WHERE key = 'schema_version'", [], 'newer');
    const error = await ensureRemoteSchema(alice).catch((e: unknown) => e);
    expect(classifyShareFailure(error)).toMatchObject({ class: 'schema', message: expect.stringContaining('newer memtrace') });
  });

  it('refuses a schema named memtrace that is not memtrace’s, changing nothing', async () => {
    await server.createDatabase('taken');
    await server.admin('CREATE SCHEMA memtrace; CREATE TABLE memtrace.mine (x int)', [], 'taken');
    await server.admin('GRANT ALL ON DATABASE taken TO alice; GRANT ALL ON SCHEMA memtrace TO alice', [], 'taken');
    const alice = await connect('alice', 'alice-pw', 'taken');
    const error = await ensureRemoteSchema(alice).catch((e: unknown) => e);
    expect(classifyShareFailure(error).class).toBe('schema');
    expect((await server.admin("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'memtrace'", [], 'taken')).rows[0]).toEqual({ n: 1 });
  });

  it('notes what a superuser can do: anything, row-level security does not bind it', async () => {
    const project = `super-${randomUUID()}`;
    const alice = await connect('alice', 'alice-pw');
    await pushBatch(alice, { project, machine: randomUUID(), label: 'a', records: [record()], withdrawals: [] });
    expect((await server.admin('DELETE FROM memtrace.records WHERE project = $1', [project], 'team')).rowCount).toBe(1);
  });
});
