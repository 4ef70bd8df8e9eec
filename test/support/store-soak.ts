import fs from 'node:fs';
import path from 'node:path';
import { DAY_MS, runRetentionPass } from '../../src/memory/retention.js';
import { createRawData, openStore } from '../../src/store/index.js';
import { realisticEvents } from './realistic-events.js';
import { toolEventRecord } from '../../src/observer/tool-evidence.js';

/**
 * A store soak: `events` realistic tool events over `days` days (sessions of 100 events, each
 * with a prompt), through the store's own enqueue. `observed`: each event is confirmed as the
 * observer would (one observation per five events); otherwise every event stays queued (no
 * provider). With `retention`, a pass runs once per simulated day. Returns the file's size once
 * the WAL is checkpointed, and what is left.
 */
export interface SoakOptions {
  dir: string;
  events: number;
  days: number;
  observed: boolean;
  retention: { rawRetentionDays: number; maxDbMb: number } | null;
}

export interface SoakResult {
  fileBytes: number;
  observations: number;
  toolEvents: number;
  queued: number;
  oldestRawAgeDays: number | null;
}

const T0 = Date.UTC(2026, 0, 1);

export async function runStoreSoak(options: SoakOptions): Promise<SoakResult> {
  const file = path.join(options.dir, 'memtrace.db');
  const store = openStore(file);
  const raw = createRawData(store.db);
  const events = realisticEvents(Math.min(options.events, 2_000), { seed: 9, secretEvery: 1_000_000 });
  const stepMs = (options.days * DAY_MS) / options.events;
  let nextPassAt = T0 + DAY_MS;
  const pass = async (nowMs: number) => {
    if (options.retention === null) return;
    await runRetentionPass(
      { rawRetentionDays: options.retention.rawRetentionDays, maxDbBytes: options.retention.maxDbMb * 1024 * 1024, batch: 1_000 },
      { raw, pruneSpool: () => 0, pause: async () => undefined },
      nowMs,
    );
  };
  const insertObservation = store.db.transaction((sessionId: string, nowMs: number, ids: number[]) => {
    for (const id of ids) {
      store.queue.claimNext(sessionId, nowMs);
      store.queue.confirm(id);
    }
    store.observations.insert(
      {
        type: 'discovery',
        title: `What the agent found in session ${sessionId}`,
        subtitle: 'one sentence about it',
        narrative: 'n'.repeat(600),
        facts: ['a fact about the code', 'another fact'],
        concepts: ['how-it-works'],
        files_read: ['/work/app/src/a.ts'],
        files_modified: [],
      },
      {
        sessionId,
        project: '/work/app',
        sourceMessageIds: ids,
        provider: 'replay',
        model: null,
        promptVersion: 'obs-v1',
        discoveryTokens: null,
        createdAt: nowMs,
      },
    );
  });
  let batch: number[] = [];
  for (let i = 0; i < options.events; i += 1) {
    const nowMs = T0 + Math.floor(i * stepMs);
    const e = events[i % events.length]!;
    const sessionId = `s${Math.floor(i / 100)}`;
    if (i % 100 === 0)
      store.sessions.init({
        sessionId,
        project: '/work/app',
        prompt: `Please ${'fix the failing tests and explain why they failed '.repeat(8)}`,
        promptId: `p${i}`,
        nowMs,
      });
    const { tool_use_id, session_id: _ignored, cwd, ...payload } = e;
    const event = { kind: 'post_tool_use' as const, session_id: sessionId, ...payload, cwd, at: nowMs };
    const { id } = store.queue.enqueue({
      sessionId,
      kind: 'observation',
      toolUseId: `${tool_use_id}-${i}`,
      payload: event,
      toolEvent: toolEventRecord(event),
      nowMs,
    });
    if (options.observed) {
      batch.push(id);
      if (batch.length === 5) {
        insertObservation(sessionId, nowMs, batch);
        batch = [];
      }
    }
    if (nowMs >= nextPassAt) {
      await pass(nowMs);
      nextPassAt += DAY_MS;
    }
  }
  const endMs = T0 + options.days * DAY_MS;
  await pass(endMs);
  const count = (sql: string) => (store.db.prepare(sql).get() as { n: number | null }).n;
  const oldest = count('SELECT min(created_at) AS n FROM tool_events');
  const result = {
    observations: count('SELECT count(*) AS n FROM observations') ?? 0,
    toolEvents: count('SELECT count(*) AS n FROM tool_events') ?? 0,
    queued: store.queue.depth(),
    oldestRawAgeDays: oldest === null ? null : (endMs - oldest) / DAY_MS,
  };
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  store.close();
  return { ...result, fileBytes: fs.statSync(file).size };
}
