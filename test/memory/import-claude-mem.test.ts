/**
 * `memtrace import --from claude-mem` (issue 29, items 4 and 5) against real SQLite files in
 * claude-mem's public schema (test/support/claude-mem-fixture.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createMemorySearch } from '../../src/memory/index.js';
import { openStore } from '../../src/store/index.js';
import { addPeerObservation, addPeerSession, addPeerSummary, createPeerDatabase } from '../support/claude-mem-fixture.js';
import { captureIO } from '../support/cli-io.js';
import { secretSamples } from '../support/secret-samples.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 0, 10, 9, 0, 0);

describe('memtrace import --from claude-mem', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let dataDir: string;
  let peerFile: string;
  beforeEach(() => {
    temp = makeTempDir('memtrace-claude-mem-');
    dataDir = path.join(temp.dir, 'data');
    peerFile = path.join(temp.dir, 'peer', 'claude-mem.db');
    fs.mkdirSync(path.dirname(peerFile));
  });
  afterEach(() => temp.cleanup());

  const cli = async (...args: string[]) => {
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', HOME: temp.dir }, cwd: temp.dir });
    const code = await main(['import', ...args], c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  };
  const stored = () => {
    if (!fs.existsSync(path.join(dataDir, 'memtrace.db'))) return { observations: 0, summaries: 0 };
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    try {
      return { observations: store.observations.count(), summaries: store.summaries.count() };
    } finally {
      store.close();
    }
  };
  const secret = secretSamples(29).find((s) => s.kind === 'github_token') ?? secretSamples(29)[0]!;

  /** A peer database as months of claude-mem use leave it: two projects, a subagent, odd old rows. */
  function writePeer(): void {
    const db = createPeerDatabase(peerFile);
    addPeerSession(db, { memory: 'mem-a', content: '11111111-1111-4111-8111-111111111111', project: 'shop', prompt: 'fix the coupon', at: T0 });
    addPeerSession(db, { memory: 'mem-b', content: '22222222-2222-4222-8222-222222222222', project: 'api', at: T0 + 1000 });
    addPeerObservation(db, {
      session: 'mem-a',
      project: 'shop',
      type: 'bugfix',
      title: 'Coupon applied after tax',
      subtitle: 'computeTotal ran in the wrong order',
      narrative: `VAT was charged on the full price. ${secret.text}`,
      facts: ['applyDiscount now runs first', 'covered by cart.test.ts'],
      concepts: ['problem-solution'],
      files_read: ['src/cart/total.ts'],
      files_modified: ['src/cart/total.ts'],
      at: T0 + 10_000,
    });
    addPeerObservation(db, {
      session: 'mem-a',
      project: 'shop',
      type: 'discovery',
      title: 'ワイルドカード検索が遅い',
      narrative: '商品検索でLIKEを使っていたためインデックスが効かない。',
      at: T0 + 20_000,
      agent_type: 'Explore',
      agent_id: 'a9f1',
    });
    addPeerObservation(db, {
      session: 'mem-b',
      project: 'api',
      type: 'email-investigation',
      title: 'Mail bounce rules',
      narrative: 'SPF was missing.',
      at: T0 + 30_000,
    });
    // An old row: text only, list fields as plain text.
    addPeerObservation(db, {
      session: 'mem-b',
      project: 'api',
      type: 'change',
      text: 'Moved the rate limiter in front of auth\nso bots are cut early',
      facts: 'one fact as text',
      at: T0 + 40_000,
    });
    // A row that says nothing.
    addPeerObservation(db, { session: 'mem-b', project: 'api', type: 'change', at: T0 + 50_000 });
    addPeerSummary(db, {
      session: 'mem-a',
      project: 'shop',
      request: 'fix the coupon',
      learned: 'discount before tax',
      completed: 'fixed and tested',
      at: T0 + 60_000,
    });
    db.close();
  }

  it('imports observations and summaries with types, projects, subagents and redaction; then nothing on a second run', async () => {
    writePeer();
    // This store already knows a checkout named `shop`.
    fs.mkdirSync(dataDir, { recursive: true });
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    store.sessions.init({ sessionId: 'known', project: '/home/u/work/shop', checkout: '/home/u/work/shop', nowMs: T0 });
    store.close();
    const peerBytes = fs.readFileSync(peerFile);

    const first = await cli('--from', 'claude-mem', peerFile);
    expect(first.code).toBe(1); // one record was invalid (it says nothing); the rest are in
    expect(first.stdout).toContain('imported 4 observation(s) and 1 session summary(ies) from claude-mem');
    expect(first.stdout).toContain("1 observation(s) of a type memtrace does not have were stored as 'other'");
    expect(first.stdout).toContain("project 'shop' → /home/u/work/shop");
    expect(first.stdout).toContain("project 'api' kept as given (no known checkout has that name)");
    expect(first.stderr).toContain('claude-mem observation:mem-b:5: no title, narrative, text or facts; not imported');

    const db = new Database(path.join(dataDir, 'memtrace.db'), { readonly: true });
    try {
      const rows = db
        .prepare('SELECT session_id, project, checkout, type, title, narrative, facts, agent_id, agent_type, provider FROM observations ORDER BY created_at')
        .all() as Array<Record<string, string | null>>;
      expect(rows.map((r) => [r.session_id, r.project, r.type, r.title])).toEqual([
        ['11111111-1111-4111-8111-111111111111', '/home/u/work/shop', 'bugfix', 'Coupon applied after tax'],
        ['11111111-1111-4111-8111-111111111111', '/home/u/work/shop', 'discovery', 'ワイルドカード検索が遅い'],
        ['22222222-2222-4222-8222-222222222222', 'api', 'other', 'Mail bounce rules'],
        ['22222222-2222-4222-8222-222222222222', 'api', 'change', 'Moved the rate limiter in front of auth'],
      ]);
      expect(rows[0]!.checkout).toBe('/home/u/work/shop');
      expect(JSON.parse(rows[0]!.facts!)).toEqual(['applyDiscount now runs first', 'covered by cart.test.ts']);
      expect(JSON.parse(rows[3]!.facts!)).toEqual(['one fact as text']);
      expect(rows[3]!.narrative).toBe('Moved the rate limiter in front of auth\nso bots are cut early');
      expect(rows[1]).toMatchObject({ agent_id: 'a9f1', agent_type: 'Explore', provider: 'claude-mem' });
      expect(rows[0]!.narrative).toContain('[REDACTED:');
      expect(rows[0]!.narrative).not.toContain(secret.secret);
      expect(db.prepare("SELECT prompt, status FROM sessions WHERE session_id = '11111111-1111-4111-8111-111111111111'").get()).toEqual({
        prompt: 'fix the coupon',
        status: 'ended',
      });
      expect(db.prepare('SELECT request, learned FROM summaries').get()).toEqual({ request: 'fix the coupon', learned: 'discount before tax' });
    } finally {
      db.close();
    }
    // What was imported is searchable, CJK included, and the secret is nowhere on disk.
    const search = openStore(path.join(dataDir, 'memtrace.db'));
    expect(
      createMemorySearch(search.db)
        .search('ワイルドカード')
        .map((h) => h.title),
    ).toEqual(['ワイルドカード検索が遅い']);
    search.close();
    for (const f of fs.readdirSync(dataDir).filter((f) => f.startsWith('memtrace.db'))) {
      expect(fs.readFileSync(path.join(dataDir, f)).includes(secret.secret)).toBe(false);
    }
    // The peer's file is as it was, and no file was added beside it.
    expect(fs.readFileSync(peerFile).equals(peerBytes)).toBe(true);
    expect(fs.readdirSync(path.dirname(peerFile))).toEqual(['claude-mem.db']);

    const second = await cli('--from', 'claude-mem', peerFile);
    expect(second.stdout).toContain('nothing new to import: all 5 record(s)');
    const json = await cli('--from', 'claude-mem', peerFile, '--json');
    expect(JSON.parse(json.stdout)).toEqual({ imported: 0, skipped: 5, invalid: 1 });
    expect(stored()).toEqual({ observations: 4, summaries: 1 });
  });

  it('--dry-run prints the counts and changes nothing, not even a data dir', async () => {
    writePeer();
    const dry = await cli('--from', 'claude-mem', peerFile, '--dry-run');
    expect(dry.stdout).toContain('would import 4 observation(s) and 1 session summary(ies)');
    expect(dry.stdout).toContain('Nothing was changed (--dry-run)');
    expect(fs.existsSync(dataDir)).toBe(false);
    expect(JSON.parse((await cli('--from', 'claude-mem', peerFile, '--dry-run', '--json')).stdout)).toEqual({ imported: 5, skipped: 0, invalid: 1 });
    await cli('--from', 'claude-mem', peerFile);
    const before = fs.statSync(path.join(dataDir, 'memtrace.db')).mtimeMs;
    expect(JSON.parse((await cli('--from', 'claude-mem', peerFile, '--dry-run', '--json')).stdout)).toEqual({ imported: 0, skipped: 5, invalid: 1 });
    expect(fs.statSync(path.join(dataDir, 'memtrace.db')).mtimeMs).toBe(before);
  });

  it('reads the default ~/.claude-mem/claude-mem.db, and a missing path is exit 1 naming it', async () => {
    const missing = await cli('--from', 'claude-mem');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`memtrace import: no such file: ${path.join(temp.dir, '.claude-mem', 'claude-mem.db')}; nothing was imported.\n`);
    expect((await cli('--from', 'claude-mem', 'nowhere.db')).stderr).toContain(path.join(temp.dir, 'nowhere.db'));
    fs.mkdirSync(path.join(temp.dir, '.claude-mem'));
    peerFile = path.join(temp.dir, '.claude-mem', 'claude-mem.db');
    writePeer();
    expect(JSON.parse((await cli('--from', 'claude-mem', '--json')).stdout)).toEqual({ imported: 5, skipped: 0, invalid: 1 });
  });

  it('refuses a database that is not claude-mem’s, or lacks a column it needs, in one line, importing nothing', async () => {
    fs.mkdirSync(path.join(temp.dir, 'other'));
    openStore(path.join(temp.dir, 'other', 'memtrace.db')).close();
    const notPeer = await cli('--from', 'claude-mem', path.join(temp.dir, 'other', 'memtrace.db'));
    expect(notPeer.code).toBe(1);
    expect(notPeer.stderr).toMatch(/^memtrace import: .*memtrace\.db is not a claude-mem database \(no table session_summaries\); nothing was imported\.\n$/);

    // An older claude-mem schema named the session column differently.
    const old = new Database(peerFile);
    old.exec(`CREATE TABLE observations (id INTEGER PRIMARY KEY, sdk_session_id TEXT, project TEXT, type TEXT, title TEXT, subtitle TEXT, narrative TEXT,
      facts TEXT, concepts TEXT, files_read TEXT, files_modified TEXT, created_at TEXT, created_at_epoch INTEGER);
      CREATE TABLE session_summaries (id INTEGER PRIMARY KEY, memory_session_id TEXT, project TEXT, request TEXT, investigated TEXT, learned TEXT,
      completed TEXT, next_steps TEXT, notes TEXT, created_at TEXT, created_at_epoch INTEGER);
      INSERT INTO observations (sdk_session_id, project, type, title, created_at, created_at_epoch) VALUES ('s', 'p', 'bugfix', 't', '2026-01-01', 1767225600000);`);
    old.close();
    const oldSchema = await cli('--from', 'claude-mem', peerFile);
    expect(oldSchema.code).toBe(1);
    expect(oldSchema.stderr).toBe(
      `memtrace import: ${peerFile} is not a claude-mem database (table observations has no column memory_session_id); nothing was imported.\n`,
    );
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('refuses a file that is not SQLite and a damaged database, leaving nothing half-written', async () => {
    fs.writeFileSync(peerFile, Buffer.from('this is a text file, not a database '.repeat(50)));
    const garbage = await cli('--from', 'claude-mem', peerFile);
    expect(garbage.code).toBe(1);
    expect(garbage.stderr).toBe(`memtrace import: ${peerFile} is not a SQLite database; nothing was imported.\n`);

    fs.rmSync(peerFile);
    const db = createPeerDatabase(peerFile);
    db.transaction(() => {
      addPeerSession(db, { memory: 'm', content: 'c', project: 'shop', at: T0 });
      for (let i = 0; i < 3_000; i += 1)
        addPeerObservation(db, { session: 'm', project: 'shop', type: 'change', title: `row ${i}`, narrative: `zzmark${i}zz ${'x'.repeat(200)}`, at: T0 + i });
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    db.close();
    // Damage the page holding a row two thirds in: rows before it were already stored when the read fails.
    const bytes = fs.readFileSync(peerFile);
    const at = bytes.indexOf('zzmark2000zz');
    expect(at).toBeGreaterThan(0);
    const page = Math.floor(at / pageSize) * pageSize;
    bytes.fill(0xa5, page, page + pageSize);
    fs.writeFileSync(peerFile, bytes);

    fs.mkdirSync(dataDir, { recursive: true });
    openStore(path.join(dataDir, 'memtrace.db')).close();
    const damaged = await cli('--from', 'claude-mem', peerFile);
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toMatch(/^memtrace import: .* is damaged \(.*\); run claude-mem's own repair, or import a backup; nothing was imported\.\n$/);
    expect(stored()).toEqual({ observations: 0, summaries: 0 });
    const ledger = new Database(path.join(dataDir, 'memtrace.db'), { readonly: true });
    expect(ledger.prepare('SELECT count(*) AS n FROM imported_records').get()).toEqual({ n: 0 });
    ledger.close();
  });

  describe('while another process has the database open', () => {
    let child: ChildProcess | null = null;
    afterEach(async () => {
      if (child && child.exitCode === null) {
        child.stdin?.end();
        await once(child, 'exit');
      }
      child = null;
    });

    /** A process holding a write transaction (as claude-mem's worker does mid-write) until its stdin closes. */
    async function holdWrite(file: string, sql: string): Promise<ChildProcess> {
      const script = `
        const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
        const db = new Database(${JSON.stringify(file)});
        db.exec(${JSON.stringify(sql)});
        process.stdout.write('ready\\n');
        process.stdin.on('data', () => {});
        process.stdin.on('end', () => { try { db.exec('COMMIT'); } catch {} db.close(); });`;
      const proc = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      proc.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      while (!out.includes('ready')) {
        if (proc.exitCode !== null) throw new Error('the writer exited early');
        await once(proc.stdout!, 'data');
      }
      return proc;
    }

    it('imports what is committed while claude-mem’s worker holds a write transaction (WAL), reading only', async () => {
      writePeer();
      child = await holdWrite(
        peerFile,
        `BEGIN IMMEDIATE; INSERT INTO observations (memory_session_id, project, type, title, created_at, created_at_epoch) VALUES ('mem-a', 'shop', 'feature', 'Uncommitted yet', '2026-01-11', ${T0 + 90_000});`,
      );
      const beside = fs.readdirSync(path.dirname(peerFile)).sort();
      const run = await cli('--from', 'claude-mem', peerFile, '--json');
      expect(JSON.parse(run.stdout)).toEqual({ imported: 5, skipped: 0, invalid: 1 });
      expect(fs.readdirSync(path.dirname(peerFile)).sort()).toEqual(beside);
      child.stdin!.end();
      await once(child, 'exit');
      child = null;
      // Committed now: the next run brings exactly that one.
      expect(JSON.parse((await cli('--from', 'claude-mem', peerFile, '--json')).stdout)).toEqual({ imported: 1, skipped: 5, invalid: 1 });
    });

    it('says the database is locked when a rollback-journal writer holds it, and imports nothing', async () => {
      writePeer();
      const db = new Database(peerFile);
      db.pragma('journal_mode = DELETE');
      db.close();
      child = await holdWrite(peerFile, 'PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;');
      const run = await cli('--from', 'claude-mem', peerFile);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^memtrace import: .*claude-mem\.db is locked by another process \(.*\); try again when claude-mem's worker is idle; nothing was imported\.\n$/,
      );
      expect(stored()).toEqual({ observations: 0, summaries: 0 });
    });
  });

  it('shows its progress on a terminal', async () => {
    const db = createPeerDatabase(peerFile);
    db.transaction(() => {
      addPeerSession(db, { memory: 'm', content: 'c', project: 'shop', at: T0 });
      for (let i = 0; i < 2_500; i += 1) addPeerObservation(db, { session: 'm', project: 'shop', type: 'change', title: `row ${i}`, at: T0 + i });
    })();
    db.close();
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', HOME: temp.dir }, cwd: temp.dir });
    Object.assign(c.io.stderr, { isTTY: true });
    expect(await main(['import', '--from', 'claude-mem', peerFile], c.io)).toBe(0);
    expect(c.stderr()).toContain('\rreading claude-mem: 2,500 of 2,500 records (100%) ');
    expect(c.stdout()).toContain('imported 2,500 observation(s)');
  });

  it('explains itself in --help and refuses other sources and --dry-run without one', async () => {
    const help = await cli('--help');
    expect(help.stdout).toContain('memtrace import --from claude-mem [PATH] [--dry-run] [--json]');
    expect((await cli('--from', 'mem0')).code).toBe(2);
    expect((await cli('--from', 'mem0')).stderr).toContain("--from takes claude-mem, got 'mem0'");
    expect((await cli('x.jsonl', '--dry-run')).stderr).toContain('--dry-run is for --from claude-mem');
  });
});
