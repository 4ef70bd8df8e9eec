import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { buildContext, createContextQuery } from '../../src/context/index.js';
import { createMemorySearch } from '../../src/memory/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { captureIO } from '../support/cli-io.js';
import { addObservation, addSummary, T0 } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';
import { queuedToolUse } from '../support/queued-events.js';
import { toolEventRecord } from '../../src/observer/tool-evidence.js';

/** A word no tokenizer changes (no vowels: porter leaves it as it is), so its bytes are easy to find. */
const MARKER = 'xqzjvkwq';

/** Occurrences of the marker, byte by byte, in the database file and its -wal file (any case). */
function markerBytes(dbFile: string): number {
  let n = 0;
  for (const file of [dbFile, `${dbFile}-wal`]) {
    if (!fs.existsSync(file)) continue;
    const bytes = fs.readFileSync(file);
    for (const needle of [MARKER, MARKER.toUpperCase()]) {
      for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) n += 1;
    }
  }
  return n;
}

describe('memtrace forget', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let dataDir: string;
  let dbFile: string;
  let ids: { marked: number; kept: number; summary: number; queueId: number };
  beforeEach(() => {
    temp = makeTempDir('memtrace-forget-');
    dataDir = path.join(temp.dir, 'data');
    dbFile = path.join(dataDir, 'memtrace.db');
    const store = openStore(dbFile);
    store.sessions.init({ sessionId: 'session-a', project: '/work/shop', nowMs: T0, prompt: 'look at the env file' });
    // The raw event the marked observation came from, as the worker handles it: queued, claimed, then confirmed with the observation.
    const marked = queuedToolUse('session-a', { tool_name: 'Bash', tool_input: { command: `echo ${MARKER}` }, tool_response: { stdout: `${MARKER}\n` } });
    const read = queuedToolUse('session-a', { tool_name: 'Read', tool_input: { file_path: '/work/shop/README.md' } });
    const queued = store.queue.enqueue({
      sessionId: 'session-a',
      kind: 'observation',
      toolUseId: 'toolu_1',
      payload: marked,
      toolEvent: toolEventRecord(marked),
      nowMs: T0,
    });
    const other = store.queue.enqueue({
      sessionId: 'session-a',
      kind: 'observation',
      toolUseId: 'toolu_2',
      payload: read,
      toolEvent: toolEventRecord(read),
      nowMs: T0,
    });
    store.queue.claimNext('session-a', T0);
    store.queue.claimNext('session-a', T0);
    ids = store.db.transaction(() => {
      const marked = addObservation(store, {
        type: 'discovery',
        title: `The ${MARKER} credential lives in .env`,
        narrative: `Found ${MARKER} in the env file; facts below.`,
        facts: [`key ${MARKER}`],
        concepts: [MARKER],
        files_read: [`/work/shop/${MARKER}.env`],
        sourceMessageIds: [queued.id],
        createdAt: T0 + 1,
      });
      const kept = addObservation(store, {
        type: 'discovery',
        title: 'The README explains the build',
        narrative: 'npm run build',
        sourceMessageIds: [other.id],
        createdAt: T0 + 2,
      });
      const summary = addSummary(store, { request: 'tidy the env file', learned: 'secrets belong in the vault', createdAt: T0 + 3 });
      store.queue.confirm(queued.id);
      store.queue.confirm(other.id);
      return { marked, kept, summary, queueId: queued.id };
    })();
    // Compacted history built from the marked observation: a leaf, and a condensed summary above it.
    const leaf = compacted(store, 'leaf', 0, `Earlier: ${MARKER} was found in .env`, ids.marked);
    const sibling = compacted(store, 'leaf', 0, 'Earlier: the README', ids.kept);
    const top = compacted(store, 'condensed', 1, `History: ${MARKER} and the README`, null, [leaf, sibling]);
    expect(top).toBeGreaterThan(0);
    store.db.pragma('wal_checkpoint(PASSIVE)');
    store.close();
  });
  afterEach(() => temp.cleanup());

  function compacted(store: Store, kind: 'leaf' | 'condensed', depth: number, content: string, observationId: number | null, sources: number[] = []): number {
    const id = Number(
      store.db
        .prepare(`INSERT INTO memory_summaries (project, kind, depth, level, content, token_count, source_token_count, first_observation_id, last_observation_id, observation_count, earliest_at, latest_at, created_at, updated_at)
          VALUES ('/work/shop', ?, ?, 'normal', ?, 10, 20, ?, ?, 1, ?, ?, ?, ?)`)
        .run(kind, depth, content, observationId ?? ids.marked, observationId ?? ids.kept, T0, T0, T0, T0).lastInsertRowid,
    );
    if (observationId !== null) store.db.prepare('INSERT INTO summary_sources (summary_id, ordinal, observation_id) VALUES (?, 0, ?)').run(id, observationId);
    sources.forEach((source, ordinal) => {
      store.db.prepare('INSERT INTO summary_sources (summary_id, ordinal, source_summary_id) VALUES (?, ?, ?)').run(id, ordinal, source);
      store.db.prepare('UPDATE memory_summaries SET condensed_into = ? WHERE id = ?').run(id, source);
    });
    return id;
  }

  async function forget(args: string[], stdin?: PassThrough) {
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', HOME: temp.dir }, cwd: temp.dir, ...(stdin ? { stdin } : {}) });
    const code = await main(['forget', ...args], c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  }
  const open = () => openStore(dbFile);

  it('leaves 0 bytes of the forgotten text in the database and its -wal file after the checkpoint', async () => {
    expect(markerBytes(dbFile)).toBeGreaterThan(0);
    const r = await forget([String(ids.marked), '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('forgot 1 observation(s) and 0 session summary(ies), 2 compacted summary(ies) built from them, 1 raw event(s).');
    expect(r.stdout).toContain('the database and its write-ahead log hold none of it any more.');
    expect(markerBytes(dbFile)).toBe(0);
  });

  it('forgetting the whole session leaves 0 bytes of it, prompts included', async () => {
    const store0 = open();
    store0.sessions.init({ sessionId: 'session-a', nowMs: T0 + 5, prompt: `now forget ${MARKER}`, promptId: 'p2' });
    store0.close();
    const r = await forget(['--session', 'session-a', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('forgot 2 observation(s) and 1 session summary(ies)');
    expect(r.stdout).toContain('1 session record(s)');
    expect(markerBytes(dbFile)).toBe(0);
    const store = open();
    expect(store.sessions.get('session-a')).toBeNull();
    expect(store.sessions.prompts('session-a')).toEqual([]);
    expect(store.db.prepare("SELECT count(*) AS n FROM tool_events WHERE session_id = 'session-a'").get()).toEqual({ n: 0 });
    // Dedup survives: a transcript mined again does not bring the events back.
    expect(store.queue.hasSeen('session-a', 'toolu_1')).toBe(true);
    store.close();
  });

  it('removes the item from the table, the search index, the compacted history, context injection, exports and its raw events', async () => {
    expect((await forget([String(ids.marked), '--yes'])).code).toBe(0);
    const store = open();
    expect(store.observations.get(ids.marked)).toBeNull();
    expect(store.observations.get(ids.kept)).not.toBeNull();
    expect(createMemorySearch(store.db).search(MARKER)).toEqual([]);
    expect(store.db.prepare('SELECT count(*) AS n FROM memory_fts WHERE memory_fts MATCH ?').get(`"${MARKER}"`)).toEqual({ n: 0 });
    expect(store.db.prepare('SELECT content FROM memory_summaries').all()).toEqual([{ content: 'Earlier: the README' }]);
    expect(store.db.prepare('SELECT condensed_into FROM memory_summaries').get()).toEqual({ condensed_into: null });
    expect(store.toolEvents.byQueueIds([ids.queueId])).toEqual([]);
    const context = buildContext(createContextQuery(store.db), { project: '/work/shop', budgetTokens: 4000, nowMs: T0 + 10 });
    // The summary of the README's own run stays, back on top of the history, to be condensed anew.
    expect(context.markdown).toContain('Earlier: the README');
    expect(context.markdown).not.toContain(MARKER);
    store.close();
    const exported = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', HOME: temp.dir } });
    await main(['export'], exported.io);
    expect(exported.stdout()).toContain('The README explains the build');
    expect(exported.stdout()).not.toContain(MARKER);
  });

  it('--dry-run lists what would go and changes nothing', async () => {
    const r = await forget(['--match', MARKER, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('would forget: 1 item(s), and 2 compacted summary(ies) built from them');
    expect(r.stdout).toContain(`#${ids.marked}  2026-01-05  The ${MARKER} credential lives in .env`);
    expect(r.stdout).toContain('dry run: nothing was changed.');
    const store = open();
    expect(store.observations.get(ids.marked)).not.toBeNull();
    expect(store.db.prepare('SELECT count(*) AS n FROM memory_summaries').get()).toEqual({ n: 3 });
    store.close();
  });

  it('combines filters: --project with --before selects older items of that project only', async () => {
    const r = await forget(['--project', '/work/shop/', '--before', new Date(T0 + 2).toISOString(), '--dry-run']);
    expect(r.stdout).toContain('would forget: 1 item(s)');
    expect(r.stdout).toContain(`#${ids.marked}`);
  });

  it('refuses without --yes when not on a terminal: exit 1, one line, nothing forgotten', async () => {
    const r = await forget([String(ids.marked)], new PassThrough());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('memtrace forget: not on a terminal and no --yes; nothing was forgotten.\n');
    const store = open();
    expect(store.observations.get(ids.marked)).not.toBeNull();
    store.close();
  });

  it('refuses an unknown id: exit 1, one line, nothing forgotten (not even the ids that exist)', async () => {
    const r = await forget([String(ids.kept), '999', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('memtrace forget: no observation 999 in the store; nothing was forgotten.\n');
    const store = open();
    expect(store.observations.get(ids.kept)).not.toBeNull();
    store.close();
  });

  it('refuses a call that names nothing, a bad id, a bad date and an empty --match as usage errors (exit 2)', async () => {
    for (const args of [[], ['abc'], ['0'], ['--before', 'yesterday'], ['--match', '"()'], ['--session', '']]) {
      const r = await forget([...args, '--yes']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^memtrace forget: .+\n\nusage: memtrace forget /);
    }
  });

  it('--match takes only items holding every word, not any of them', async () => {
    const loose = await forget(['--match', `README ${MARKER}`, '--dry-run']);
    expect(loose.stdout).toBe('nothing matches; nothing was forgotten.\n');
    const both = await forget(['--match', 'README build', '--dry-run']);
    expect(both.stdout).toContain(`#${ids.kept}  2026-01-05  The README explains the build`);
    expect(both.stdout).toContain('would forget: 1 item(s)');
  });

  it('says so when nothing matches', async () => {
    const r = await forget(['--match', 'nothingmatchesthis', '--yes']);
    expect(r).toMatchObject({ code: 0, stdout: 'nothing matches; nothing was forgotten.\n' });
  });
});
