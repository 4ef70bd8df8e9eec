import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyForget, createMemorySearch, planForget } from '../../src/memory/index.js';
import { classifyShareFailure } from '../../src/share/failure.js';
import { makeMachine, REMOTE_PROJECT, type Machine } from '../support/share-machines.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';
import { makeTempDir } from '../support/temp-dir.js';
import { NO_REST } from '../../src/store/index.js';

/** Forget as the CLI runs it with no worker: no rests between the index merge's steps. */
const NO_PACING = { elapsedMs: () => performance.now(), rest: NO_REST };

let server: PostgresServer;
const temp = makeTempDir('memtrace-share-sync-');
let laptop: Machine; // alice
let desktop: Machine; // alice again, her second machine
let bob: Machine;

const titles = (m: Machine) =>
  (
    m.store.db.prepare('SELECT title, origin, project FROM observations ORDER BY id').all() as Array<{ title: string; origin: string | null; project: string }>
  ).map((r) => `${r.title} <${r.origin ?? 'here'}>`);

beforeAll(async () => {
  server = await startPostgresServer();
  await server.createDatabase('team');
  await server.createRole('alice', 'alice-pw', { createOn: 'team' });
  await server.createRole('bob', 'bob-pw');
  laptop = await makeMachine(server, temp.dir, { name: 'laptop', role: 'alice', password: 'alice-pw', project: '/home/alice/src/shop', label: 'alice@laptop' });
  desktop = await makeMachine(server, temp.dir, {
    name: 'desktop',
    role: 'alice',
    password: 'alice-pw',
    project: '/Users/alice/code/shop',
    label: 'alice@desktop',
  });
  bob = await makeMachine(server, temp.dir, { name: 'bob', role: 'bob', password: 'bob-pw', project: '/home/bob/shop', label: 'bob@desk' });
}, 60_000);

afterAll(async () => {
  for (const m of [laptop, desktop, bob]) m?.close();
  await server?.destroy();
  temp.cleanup();
});

describe('sharing one project between machines through a real Postgres', () => {
  it("brings a teammate's observations and summaries in once, marked with whose they are, under this machine's path", async () => {
    laptop.observe('cart rounding bug', { narrative: 'found in /home/alice/src/shop/src/cart.ts', files_modified: ['/home/alice/src/shop/src/cart.ts'] });
    laptop.summarize('fix the cart total');
    expect(await laptop.sync()).toMatchObject({ pushed: 2, pulled: 0, pending: 0 });
    expect(await bob.sync()).toMatchObject({ pushed: 0, pulled: 2 });
    expect(await bob.sync()).toMatchObject({ pulled: 0 });
    const row = bob.store.db.prepare('SELECT project, checkout, origin, narrative, files_modified FROM observations').get();
    expect(row).toEqual({
      project: '/home/bob/shop',
      checkout: '/home/bob/shop',
      origin: 'alice@laptop',
      narrative: 'found in src/cart.ts',
      files_modified: '["src/cart.ts"]',
    });
    expect(bob.store.db.prepare('SELECT request, origin FROM summaries').all()).toEqual([{ request: 'fix the cart total', origin: 'alice@laptop' }]);
    const hits = createMemorySearch(bob.store.db).search('cart rounding');
    expect(hits[0]).toMatchObject({ title: 'cart rounding bug', origin: 'alice@laptop' });
  });

  it('never pushes a pulled record back, nor pulls its own records again', async () => {
    bob.observe('bob flaky test');
    await bob.sync();
    expect(bob.ledger.get(bob.project)!.pending).toBe(0);
    await laptop.sync();
    await bob.sync();
    await laptop.sync();
    expect(titles(laptop)).toEqual(['cart rounding bug <here>', 'bob flaky test <bob@desk>']);
    expect(titles(bob)).toEqual(['cart rounding bug <alice@laptop>', 'bob flaky test <here>']);
    const rows = await server.admin<{ n: number }>("SELECT count(*)::int AS n FROM memtrace.records WHERE kind = 'observation'", [], 'team');
    expect(rows.rows[0]!.n).toBe(2);
  });

  it("treats a person's second machine as a machine of its own: everything arrives, from both", async () => {
    desktop.observe('desktop build note');
    await desktop.sync();
    await laptop.sync();
    expect(titles(desktop)).toEqual(['desktop build note <here>', 'cart rounding bug <alice@laptop>', 'bob flaky test <bob@desk>']);
    expect(titles(laptop)).toContain('desktop build note <alice@desktop>');
  });

  it('withdraws a record its maker forgets, everywhere, at their next pull; the text leaves the database', async () => {
    const id = laptop.observe('wrong theory about the cache', { narrative: 'a detail worth forgetting' });
    await laptop.sync();
    await bob.sync();
    expect(titles(bob)).toContain('wrong theory about the cache <alice@laptop>');
    await applyForget(laptop.store.db, planForget(laptop.store.db, { observationIds: [id] }), NO_PACING);
    expect(await laptop.sync()).toMatchObject({ withdrawn: 1 });
    expect(await bob.sync()).toMatchObject({ removedByOwner: 1 });
    expect(titles(bob)).not.toContain('wrong theory about the cache <alice@laptop>');
    expect(createMemorySearch(bob.store.db).search('cache theory')).toEqual([]);
    expect(await server.dumpDatabase('team')).not.toContain('worth forgetting');
  });

  it("hides a teammate's record forgotten here on this machine only, and never pulls it again", async () => {
    const pulled = bob.store.db.prepare("SELECT id FROM observations WHERE title = 'cart rounding bug'").get() as { id: number };
    await applyForget(bob.store.db, planForget(bob.store.db, { observationIds: [pulled.id] }), NO_PACING);
    expect(await bob.sync()).toMatchObject({ withdrawn: 0, pulled: 0 });
    expect(titles(laptop)).toContain('cart rounding bug <here>');
    expect(await server.dumpDatabase('team')).toContain('cart rounding bug');
    // Even reading the whole log again (a database restored, a cursor lost) does not bring it back.
    bob.ledger.setCursor(bob.project, { xid: '0', seq: 0 });
    await bob.sync();
    expect(titles(bob)).not.toContain('cart rounding bug <alice@laptop>');
  });

  it('sends nothing of a project that is not shared', async () => {
    laptop.observe('private side project note', { project: '/home/alice/src/diary' });
    await laptop.sync();
    expect(await server.dumpDatabase('team')).not.toContain('side project');
  });

  it('refuses rows that are not records, counting them and storing nothing, and goes on', async () => {
    const bogus = [
      '(\'observation\', \'{"type": "nonsense", "title": "t", "narrative": "n"}\')',
      "('summary', '[1, 2, 3]')",
      "('observation', '{\"title\": 42}')",
    ];
    for (const [i, values] of bogus.entries()) {
      const [kind, body] = values.slice(1, -1).split(/, (?=')/) as [string, string];
      await server.admin(
        `INSERT INTO memtrace.records (uid, project, kind, machine, label, session, created_at, body) VALUES (gen_random_uuid(), $1, ${kind}, gen_random_uuid(), $2, 's', now(), ${body}::jsonb)`,
        [REMOTE_PROJECT, `mallory\u0007${i}`],
        'team',
      );
    }
    laptop.observe('after the garbage');
    await laptop.sync();
    const before = titles(bob).length;
    expect(await bob.sync()).toMatchObject({ refused: 3, pulled: 1 });
    expect(titles(bob)).toHaveLength(before + 1);
  });

  it('keeps what waits while the database is down and pushes it when it is back', async () => {
    await server.stop();
    try {
      bob.observe('written while the database was down');
      const error = await bob.sync().catch((e: unknown) => e);
      expect(classifyShareFailure(error).class).toBe('refused');
      expect(bob.ledger.get(bob.project)!.pending).toBe(1);
    } finally {
      await server.start();
    }
    expect(await bob.sync()).toMatchObject({ pushed: 1, pending: 0 });
    await laptop.sync();
    expect(titles(laptop)).toContain('written while the database was down <bob@desk>');
  });

  it('reports progress against the rows waiting when a large pull starts', async () => {
    for (let i = 0; i < 1_200; i += 1) laptop.observe(`bulk ${i}`);
    await laptop.sync();
    const seen: Array<[number, number]> = [];
    const outcome = await bob.sync({ pullBatch: 500, progress: { pull: (done, total) => seen.push([done, total]) } });
    expect(outcome.pulled).toBe(1_200);
    expect(seen[0]).toEqual([0, 1_200]);
    expect(seen.at(-1)).toEqual([1_200, 1_200]);
  });
});
