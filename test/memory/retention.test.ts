import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DAY_MS, runRetentionPass, startRetention, type RetentionReport } from '../../src/memory/retention.js';
import { createRawData, enableIncrementalVacuum, MIGRATIONS, openStore, runMigrations, type Store } from '../../src/store/index.js';
import { keepUnreadable, listSpool, pruneSpool, spoolCall } from '../../src/data-dir/index.js';
import { silentLogger } from '../../src/log.js';
import { manualTime } from '../support/manual-time.js';
import { makeTempDir } from '../support/temp-dir.js';
import { toolEventRecord } from '../../src/observer/tool-evidence.js';
import type { QueuedEvent } from '../../src/hosts/index.js';

const T0 = Date.UTC(2026, 0, 1);
const MB = 1024 * 1024;

function observe(store: Store, sessionId: string, nowMs: number, payloadChars = 200): number {
  const payload: QueuedEvent = {
    kind: 'post_tool_use',
    session_id: sessionId,
    tool_name: 'Bash',
    tool_input: { command: `echo ${'x'.repeat(payloadChars)}` },
    tool_response: 'ok',
    at: nowMs,
  };
  const { id } = store.queue.enqueue({
    sessionId,
    kind: 'observation',
    toolUseId: `tu-${sessionId}-${nowMs}-${Math.random()}`,
    payload,
    toolEvent: toolEventRecord(payload),
    nowMs,
  });
  return id;
}

function processed(store: Store, id: number, nowMs: number): void {
  store.queue.claimNext(store.queue.get(id)!.sessionId, nowMs);
  expect(store.queue.confirm(id)).toBe(true);
}

function addObservation(store: Store, sessionId: string, nowMs: number, narrative = 'what happened'): void {
  store.observations.insert(
    { type: 'discovery', title: 'a finding', subtitle: '', narrative, facts: [], concepts: [], files_read: [], files_modified: [] },
    { sessionId, project: '/p', sourceMessageIds: [], provider: 'replay', model: null, promptVersion: 'obs-v1', discoveryTokens: null, createdAt: nowMs },
  );
}

const count = (store: Store, table: string) => (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('retention over a fake clock', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  afterEach(() => temp?.cleanup());

  it('prunes raw data processed more than MEMTRACE_RAW_RETENTION_DAYS ago and keeps the rest', async () => {
    temp = makeTempDir();
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    const time = manualTime(T0);
    // An old session, processed; an old session still waiting for its observer call; a recent one.
    store.sessions.init({ sessionId: 'old', prompt: 'old prompt', promptId: 'p1', nowMs: T0 });
    processed(store, observe(store, 'old', T0), T0);
    addObservation(store, 'old', T0);
    store.sessions.init({ sessionId: 'waiting', prompt: 'waiting prompt', promptId: 'p2', nowMs: T0 });
    observe(store, 'waiting', T0);
    // A payload that was never an event (kept aside for the user), and an event still waiting for
    // the worker: only the first is raw data past its time; the second is not processed yet.
    keepUnreadable(temp.dir, { v: 2, host: 'claude-code', event: 'post-tool-use', via: 'x', failure: 'unreadable', at: T0, raw: '{"cut short' });
    spoolCall(temp.dir, {
      method: 'POST',
      path: '/api/sessions/init',
      body: { session_id: 'x' },
      hook_event: 'session_start',
      via: 'x',
      failure: 'unreachable',
      at: T0,
    });

    const reports: RetentionReport[] = [];
    const task = startRetention(
      { rawRetentionDays: 30, maxDbBytes: 1024 * MB, batch: 100 },
      { firstDelayMs: 1_000, intervalMs: DAY_MS },
      {
        raw: createRawData(store.db),
        pruneSpool: (cutoff) => pruneSpool(temp!.dir, cutoff),
        clock: time.clock,
        timers: time.timers,
        log: silentLogger,
        pause: async () => undefined,
        onReport: (r) => reports.push(r),
      },
    );
    const settle = async () => {
      await task.runNow();
    };

    await time.runUntil(T0 + 29 * DAY_MS, settle);
    store.sessions.init({ sessionId: 'recent', prompt: 'recent prompt', promptId: 'p3', nowMs: time.now() });
    processed(store, observe(store, 'recent', time.now()), time.now());
    expect(reports.length).toBeGreaterThan(1);
    expect(reports.every((r) => Object.values(r.removed).every((n) => n === 0))).toBe(true);

    await time.runUntil(T0 + 31 * DAY_MS, settle);
    const last = reports.at(-1)!;
    expect(last.removed).toMatchObject({ toolEvents: 1, spoolFiles: 1, unprocessedDropped: 0 });
    expect(store.sessions.prompts('old')).toEqual([]);
    expect(store.sessions.get('old')!.prompt).toBeNull();
    // Not processed yet: everything stays, however old.
    expect(store.sessions.prompts('waiting').map((p) => p.prompt)).toEqual(['waiting prompt']);
    expect(store.queue.depth()).toBe(1);
    expect(listSpool(temp.dir)).toHaveLength(1);
    expect(store.db.prepare("SELECT count(*) AS n FROM tool_events WHERE session_id = 'waiting'").get()).toEqual({ n: 1 });
    // Recent: kept.
    expect(store.sessions.prompts('recent')).toHaveLength(1);
    // Memory is never raw data.
    expect(count(store, 'observations')).toBe(1);
    await task.stop();
    store.close();
  });
});

describe('the size budget on a real file', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  afterEach(() => temp?.cleanup());

  const fileSize = (db: Database.Database, file: string) => {
    db.pragma('wal_checkpoint(TRUNCATE)');
    return fs.statSync(file).size;
  };

  it('removes the oldest raw data first until the store fits, and the file shrinks', async () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'memtrace.db');
    const store = openStore(file);
    const now = T0 + DAY_MS;
    // 6 MB waiting for the observer, 1,500 processed tool events, 200 observations.
    for (let i = 0; i < 1_500; i += 1) processed(store, observe(store, `s${i % 50}`, T0 + i), now);
    for (let i = 0; i < 600; i += 1) observe(store, `w${i % 10}`, T0 + i, 10_000);
    for (let i = 0; i < 200; i += 1) addObservation(store, `s${i % 50}`, T0 + i, 'n'.repeat(2_000));
    const before = fileSize(store.db, file);
    expect(before).toBeGreaterThan(6 * MB);
    const observations = count(store, 'observations');
    const firstPending = (store.db.prepare('SELECT min(id) AS id FROM queue').get() as { id: number }).id;

    const raw = createRawData(store.db);
    const time = manualTime(now);
    const task = startRetention(
      { rawRetentionDays: 30, maxDbBytes: 3 * MB, batch: 100 },
      { firstDelayMs: 1, intervalMs: DAY_MS },
      { raw, pruneSpool: () => 0, clock: time.clock, timers: time.timers, log: silentLogger, pause: async () => undefined },
    );
    const report = (await task.runNow())!;
    await task.stop();

    expect(report.overBudget).toBe(false);
    expect(report.removed.toolEvents).toBe(1_500);
    expect(report.removed.unprocessedDropped).toBeGreaterThan(0);
    // Oldest first: the first waiting message went, the newest stayed.
    expect(store.queue.get(firstPending)).toBeNull();
    expect(store.queue.depth()).toBe(600 - report.removed.unprocessedDropped);
    expect(count(store, 'observations')).toBe(observations);
    const after = fileSize(store.db, file);
    expect(after).toBeLessThanOrEqual(3 * MB);
    expect(after).toBeLessThan(before / 2);
    store.close();
  });

  it('hands freed pages back in short steps with a pause between them, until none is left', async () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'memtrace.db');
    const store = openStore(file);
    for (let i = 0; i < 1_500; i += 1) processed(store, observe(store, `s${i % 50}`, T0 + i, 2_000), T0 + DAY_MS);
    // Prompts of 5 kB: enough freed pages for several steps.
    for (let i = 0; i < 400; i += 1) store.sessions.init({ sessionId: `p${i}`, prompt: `${i} ${'p'.repeat(5_000)}`, promptId: `p${i}`, nowMs: T0 });
    const raw = createRawData(store.db);
    const steps: number[] = [];
    let pauses = 0;
    await runRetentionPass(
      { rawRetentionDays: 30, maxDbBytes: 1024 * MB, batch: 100 },
      {
        raw: {
          ...raw,
          vacuumFreePages: (pages: number) => {
            steps.push(pages);
            raw.vacuumFreePages(pages);
          },
        },
        pruneSpool: () => 0,
        pause: async () => {
          pauses += 1;
        },
      },
      T0 + 40 * DAY_MS,
    );
    expect(count(store, 'tool_events')).toBe(0);
    expect(steps.length).toBeGreaterThan(1);
    expect(Math.max(...steps)).toBeLessThanOrEqual(64);
    expect(pauses).toBeGreaterThanOrEqual(steps.length);
    expect(raw.size().freePages).toBe(0);
    store.close();
  });

  it('keeps every observation and reports the store over budget when raw data is not enough', async () => {
    temp = makeTempDir();
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    for (let i = 0; i < 400; i += 1) addObservation(store, 's', T0 + i, 'n'.repeat(4_000));
    const raw = createRawData(store.db);
    const time = manualTime(T0);
    const task = startRetention(
      { rawRetentionDays: 30, maxDbBytes: 1 * MB, batch: 100 },
      { firstDelayMs: 1, intervalMs: DAY_MS },
      { raw, pruneSpool: () => 0, clock: time.clock, timers: time.timers, log: silentLogger, pause: async () => undefined },
    );
    const report = (await task.runNow())!;
    await task.stop();
    expect(report.overBudget).toBe(true);
    expect(count(store, 'observations')).toBe(400);
    store.close();
  });

  it('turns a store made before incremental vacuum into one that returns space, data intact', () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'memtrace.db');
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    runMigrations(old, MIGRATIONS);
    old.prepare("INSERT INTO sessions (session_id, status, created_at, updated_at) VALUES ('s', 'active', 1, 1)").run();
    old.close();
    const store = openStore(file);
    expect(createRawData(store.db).size().autoVacuum).toBe('none');
    expect(enableIncrementalVacuum(store.db)).toBe('converted');
    expect(enableIncrementalVacuum(store.db)).toBe('already');
    expect(createRawData(store.db).size().autoVacuum).toBe('incremental');
    expect(store.sessions.get('s')).not.toBeNull();
    store.close();
  });

  it('gives a new store incremental vacuum from its first page', () => {
    temp = makeTempDir();
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    expect(createRawData(store.db).size().autoVacuum).toBe('incremental');
    store.close();
  });
});
