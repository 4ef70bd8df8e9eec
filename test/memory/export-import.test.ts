import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createImportCommand, importCommand } from '../../src/cli/commands/import.js';
import { runCommand } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import { openStore } from '../../src/store/index.js';
import { captureIO } from '../support/cli-io.js';
import { addObservation, addSummary, seedShop, T0 } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';
import { secretSamples } from '../support/secret-samples.js';

describe('memtrace export / import', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let source: string;
  beforeEach(() => {
    temp = makeTempDir('memtrace-export-');
    source = path.join(temp.dir, 'source');
    const store = openStore(path.join(source, 'memtrace.db'));
    seedShop(store);
    addObservation(store, {
      type: 'security',
      title: 'Ünïcödé, "quotes", \\ backslashes and\nnewlines',
      narrative: 'tab\there 🙂',
      facts: ['a', 'b'],
      concepts: ['c'],
      files_read: ['r.ts'],
      files_modified: ['m.ts'],
      project: null,
      sessionId: 'session-d',
      createdAt: T0 + 123,
    });
    addSummary(store, {
      request: 'r',
      investigated: 'i',
      learned: 'l',
      completed: 'c',
      next_steps: 'n',
      notes: 'notes',
      sessionId: 'session-d',
      project: null,
      createdAt: T0 + 456,
    });
    store.close();
  });
  afterEach(() => temp.cleanup());

  async function cli(dataDir: string, args: string[]) {
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', HOME: temp.dir }, cwd: temp.dir });
    const code = await main(args, c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  }
  const rows = (dataDir: string) => {
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    const cols = 'id, session_id, project, type, title, subtitle, narrative, facts, concepts, files_read, files_modified, created_at';
    const out = {
      observations: store.db.prepare(`SELECT ${cols} FROM observations ORDER BY id`).all(),
      summaries: store.db
        .prepare('SELECT id, session_id, project, request, investigated, learned, completed, next_steps, notes, created_at FROM summaries ORDER BY id')
        .all(),
    };
    store.close();
    return out;
  };

  it('shows its progress on a terminal, and prints no bar where stderr is not one', async () => {
    const tty = captureIO({ env: { MEMTRACE_DATA_DIR: source, MEMTRACE_TELEMETRY: '0', HOME: temp.dir }, cwd: temp.dir });
    (tty.io.stderr as { isTTY?: boolean }).isTTY = true;
    expect(await main(['export', '--out', 'bar.jsonl'], tty.io)).toBe(0);
    expect(tty.stderr()).toMatch(/\[#{30}\] 100% {2}7\/7 rows \n$/);
    const piped = await cli(source, ['export', '--out', 'quiet.jsonl']);
    expect(piped.stderr).toBe('');
  });

  it('round-trips exactly: export, import into an empty data dir, export again gives the same bytes and the same rows', async () => {
    const first = await cli(source, ['export', '--out', 'one.jsonl']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^exported 5 observation\(s\) and 2 session summary\(ies\) to .*one\.jsonl \(\d+ bytes\)\.\n$/);
    const exported = fs.readFileSync(path.join(temp.dir, 'one.jsonl'), 'utf8');
    expect(exported.trim().split('\n')).toHaveLength(7);
    expect(fs.statSync(path.join(temp.dir, 'one.jsonl')).mode & 0o777).toBe(0o600);

    const target = path.join(temp.dir, 'target');
    const imported = await cli(target, ['import', 'one.jsonl', '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({ imported: 7, skipped: 0, invalid: 0 });
    expect(rows(target)).toEqual(rows(source));
    const again = await cli(target, ['export']);
    expect(again.stdout).toBe(exported);

    // Importing the same file again stores nothing new: every id is taken.
    const twice = await cli(target, ['import', 'one.jsonl', '--json']);
    expect(JSON.parse(twice.stdout)).toEqual({ imported: 0, skipped: 7, invalid: 0 });
    // The imported memory is searchable and has its sessions.
    expect((await cli(target, ['search', 'coupon', '--json'])).stdout).toContain('Checkout total ignored the discount code');
    expect((await cli(target, ['show', '--session', 'session-b'])).code).toBe(0);
  });

  it('exports the SPEC shape: observations with every field, summaries with kind "summary"', async () => {
    const lines = (await cli(source, ['export', '--project', '/work/shop/'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(Object.keys(lines[0])).toEqual([
      'id',
      'session_id',
      'project',
      'type',
      'title',
      'subtitle',
      'narrative',
      'facts',
      'concepts',
      'files_read',
      'files_modified',
      'created_at',
    ]);
    expect(lines[0].created_at).toBe(new Date(T0).toISOString());
    const summary = lines.find((l) => l.kind === 'summary');
    expect(Object.keys(summary)).toEqual([
      'kind',
      'id',
      'session_id',
      'project',
      'request',
      'investigated',
      'learned',
      'completed',
      'next_steps',
      'notes',
      'created_at',
    ]);
    expect(lines.every((l) => l.project === '/work/shop')).toBe(true);
    const session = (await cli(source, ['export', '--session', 'session-d'])).stdout.trim().split('\n');
    expect(session).toHaveLength(2);
  });

  it('stores nothing of a malformed line or an unknown type, counts them, names them on stderr, imports the rest and exits 1', async () => {
    const file = path.join(temp.dir, 'mixed.jsonl');
    const good = { session_id: 's1', project: '/p', type: 'change', title: 'Good line', narrative: 'kept', created_at: '2026-02-01T10:00:00.000Z' };
    fs.writeFileSync(
      file,
      [
        JSON.stringify(good),
        '{"session_id": "s1", "title": "cut off',
        JSON.stringify({ ...good, type: 'poem', title: 'Unknown type' }),
        JSON.stringify({ ...good, kind: 'diary' }),
        JSON.stringify({ ...good, title: undefined }),
        JSON.stringify({ ...good, created_at: '2026-02-30' }),
        JSON.stringify({ ...good, id: 7, facts: 'not a list' }),
        '[1, 2]',
        '',
        JSON.stringify({
          kind: 'summary',
          session_id: 's1',
          project: null,
          request: 'q',
          investigated: '',
          learned: '',
          completed: '',
          next_steps: '',
          created_at: '2026-02-01',
        }),
      ].join('\n'),
    );
    const target = path.join(temp.dir, 'target');
    const r = await cli(target, ['import', file, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ imported: 2, skipped: 0, invalid: 7 });
    expect(r.stderr.trim().split('\n')).toEqual([
      'memtrace import: line 2: not valid JSON; not imported',
      'memtrace import: line 3: unknown type "poem" (one of bugfix, feature, refactor, change, discovery, decision, security, other); not imported',
      'memtrace import: line 4: unknown kind "diary" (observation or summary); not imported',
      'memtrace import: line 5: missing field title; not imported',
      'memtrace import: line 6: created_at: must be an ISO 8601 date such as 2026-01-31T12:00:00.000Z; not imported',
      'memtrace import: line 7: facts: Expected array, received string; not imported',
      'memtrace import: line 8: not a JSON object; not imported',
    ]);
    const stored = rows(target);
    expect(stored.observations).toHaveLength(1);
    expect(stored.observations[0]).toMatchObject({ title: 'Good line', created_at: Date.parse('2026-02-01T10:00:00.000Z') });
    expect(stored.summaries).toHaveLength(1);
  });

  it('keeps a given id, skips a taken one, and gives lines without an id new ones', async () => {
    const file = path.join(temp.dir, 'ids.jsonl');
    const line = (id: number | undefined, title: string) =>
      JSON.stringify({ ...(id === undefined ? {} : { id }), session_id: 's', project: null, type: 'other', title, narrative: '', created_at: '2026-03-01' });
    fs.writeFileSync(file, `${[line(500, 'five hundred'), line(1, 'taken'), line(undefined, 'fresh')].join('\n')}\n`);
    const r = await cli(source, ['import', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('imported 2, skipped 1 (id already stored), invalid 0');
    const titles = rows(source).observations.map((o: any) => [o.id, o.title]);
    expect(titles).toContainEqual([500, 'five hundred']);
    expect(titles).toContainEqual([501, 'fresh']);
    expect(titles.find(([id]) => id === 1)![1]).toBe('Checkout total ignored the discount code');
  });

  it('passes every text of every line through the sanitize step before storing it', async () => {
    const file = path.join(temp.dir, 'secret.jsonl');
    const secret = 'sk-live-SECRET';
    fs.writeFileSync(
      file,
      `${JSON.stringify({ session_id: 's', project: '/p', type: 'bugfix', title: secret, subtitle: secret, narrative: secret, facts: [secret], concepts: [secret], files_read: [secret], files_modified: [secret], created_at: '2026-03-01' })}\n` +
        `${JSON.stringify({ kind: 'summary', session_id: 's', project: '/p', request: secret, investigated: secret, learned: secret, completed: secret, next_steps: secret, notes: secret, created_at: '2026-03-01' })}\n`,
    );
    const target = path.join(temp.dir, 'target');
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: target, MEMTRACE_TELEMETRY: '0', HOME: temp.dir }, cwd: temp.dir });
    const command = createImportCommand(() => ({ sanitize: (text) => text.replaceAll('SECRET', '[REDACTED:test]'), counts: {} }));
    expect(await runCommand(command, [file], c.io), c.stderr()).toBe(0);
    const stored = JSON.stringify(rows(target));
    expect(stored).not.toContain('SECRET');
    expect(stored.match(/\[REDACTED:test\]/g)).toHaveLength(13);
  });

  it('keeps every kind of secret in an imported file out of the database and its WAL, and counts them by kind', async () => {
    const samples = secretSamples(21);
    const file = path.join(temp.dir, 'canaries.jsonl');
    fs.writeFileSync(
      file,
      `${samples.map((s, i) => JSON.stringify({ session_id: 'imported', project: '/p', type: 'discovery', title: `seen ${i}`, narrative: s.text, facts: [s.text], created_at: '2026-03-01' })).join('\n')}\n`,
    );
    const target = path.join(temp.dir, 'canary-target');
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: target, MEMTRACE_TELEMETRY: '1', HOME: temp.dir }, cwd: temp.dir });
    expect(await runCommand(importCommand, [file], c.io), c.stderr()).toBe(0);
    for (const name of fs.readdirSync(target).filter((n) => n.startsWith('memtrace.db'))) {
      const bytes = fs.readFileSync(path.join(target, name));
      for (const s of samples) expect(bytes.includes(s.secret), `${s.kind} in ${name}`).toBe(false);
    }
    expect(JSON.stringify(rows(target))).toContain('[REDACTED:');
    const db = new Database(path.join(target, 'memtrace.db'), { readonly: true });
    const windows = db.prepare("SELECT state FROM telemetry_accumulators WHERE event = 'redaction_rollup'").all() as Array<{ state: string }>;
    db.close();
    const counted = windows.map((w) => JSON.parse(w.state) as { dims: { edge: string }; counters: Record<string, number> });
    expect(counted.map((w) => w.dims.edge)).toEqual(['import']);
    for (const s of samples) expect(counted[0]!.counters[s.kind]).toBeGreaterThan(0);
  });

  it('writes one readable markdown document per project, 0600, in a 0700 folder', async () => {
    const r = await cli(source, ['export', '--format', 'markdown', '--out', 'md']);
    expect(r.code, r.stderr).toBe(0);
    const dir = path.join(temp.dir, 'md');
    expect(fs.readdirSync(dir).sort()).toEqual(['no-project.md', 'work-blog.md', 'work-shop.md']);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of fs.readdirSync(dir)) expect(fs.statSync(path.join(dir, f)).mode & 0o777).toBe(0o600);
    const shop = fs.readFileSync(path.join(dir, 'work-shop.md'), 'utf8');
    expect(shop).toMatch(/^# Memory of \/work\/shop\n/);
    expect(shop).toContain('## Session session-a');
    expect(shop).toContain('### Checkout total ignored the discount code\n\n*bugfix · 2026-01-05 09:00 UTC · observation 1*');
    expect(shop).toContain('- computeTotal calls applyDiscount before tax');
    expect(shop).toContain('Files modified: `src/cart/compute-total.ts`');
    expect(shop).toContain('### Session summary');
    expect(shop).toContain('**Learned:** the order of discount and tax matters');
    expect(shop.indexOf('session-a')).toBeLessThan(shop.indexOf('session-b'));
  });

  it('refuses bad flags and a missing file with one line', async () => {
    expect((await cli(source, ['export', '--format', 'csv'])).stderr).toMatch(/^memtrace export: --format must be jsonl or markdown, got 'csv'\n\nusage:/);
    expect((await cli(source, ['export', '--format', 'csv'])).code).toBe(2);
    expect((await cli(source, ['import'])).code).toBe(2);
    const missing = await cli(source, ['import', 'nope.jsonl']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`memtrace import: cannot read ${path.join(temp.dir, 'nope.jsonl')} (ENOENT); nothing was imported.\n`);
  });

  it('exports nothing, and creates nothing, from a data dir with no memory', async () => {
    const empty = path.join(temp.dir, 'empty');
    const r = await cli(empty, ['export']);
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(fs.existsSync(empty)).toBe(false);
  });
});
