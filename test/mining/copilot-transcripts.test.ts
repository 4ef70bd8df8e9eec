/**
 * Mining Copilot CLI's session logs (the real `events.jsonl` of test/fixtures/hosts/copilot): the
 * tool events its hooks deliver, failures as failures, nothing queued twice — whether the hooks
 * delivered a call (under its provisional id) before mining ran, after it, or never.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copilotAdapter } from '../../src/hosts/copilot/adapter.js';
import { isToolEvent, type HookEvent } from '../../src/hosts/index.js';
import {
  copilotSessionIdOfPath,
  createMiner,
  createStoreMiningStore,
  defaultHostTranscriptRoot,
  discoverHostTranscripts,
  hostOfTranscriptPath,
  startTranscriptWatcher,
} from '../../src/mining/index.js';
import { silentLogger } from '../../src/log.js';
import { toolEventRecord } from '../../src/observer/tool-evidence.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createProjectResolver } from '../../src/worker/project-of.js';
import { hostPayloads, hostTranscript } from '../support/host-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 10, 28, 23, 0, 0);
const SESSION = '7a162ee4-0020-4a52-ae4d-1b371b7653e2';
const FINAL = 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.';
const REAL_IDS = ['call_e52fcb633069f990', 'call_d610d5ec54a5e5e1', 'call_eccacf605b965c1c', 'call_3ebb8b024b5b6d5e', 'call_0d1f0b99c78caa49'];
const toolHooks = hostPayloads('copilot', 'captured').filter((p) => p.event === 'postToolUse' || p.event === 'postToolUseFailure');

describe('mining Copilot CLI session logs', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let eventsFile: string;
  beforeEach(() => {
    temp = makeTempDir();
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    eventsFile = path.join(temp.dir, 'session-state', SESSION, 'events.jsonl');
    fs.mkdirSync(path.dirname(eventsFile), { recursive: true });
    fs.copyFileSync(hostTranscript('copilot', 'events.jsonl'), eventsFile);
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });

  const miner = () => createMiner({}, { store: createStoreMiningStore(store, { projectOf: createProjectResolver() }), now: () => T0, wake: () => undefined });
  const mine = async () => {
    const found = await discoverHostTranscripts('copilot', path.join(temp.dir, 'session-state'));
    expect(found.targets).toHaveLength(1);
    return miner().mineFile(found.targets[0]!);
  };
  const tools = () =>
    (
      store.db.prepare("SELECT tool_use_id, payload FROM queue WHERE kind = 'observation' ORDER BY id").all() as Array<{ tool_use_id: string; payload: string }>
    ).map((r) => ({ id: r.tool_use_id, ...JSON.parse(r.payload) }));
  const shown = () =>
    (
      store.db.prepare('SELECT tool_use_id, tool_name, failed, exit_code FROM tool_events WHERE session_id = ? ORDER BY queue_id').all(SESSION) as Array<{
        tool_use_id: string;
      }>
    ).map((r) => r.tool_use_id);
  /** A hook event as the worker takes it. */
  const deliver = (event: string, payload: Record<string, unknown>) => {
    const adapted = copilotAdapter.toEvent(event, payload, {});
    if (!adapted.ok || adapted.event === null || !isToolEvent(adapted.event as HookEvent)) throw new Error('not a tool event');
    const tool = adapted.event as Extract<HookEvent, { kind: 'post_tool_use' | 'post_tool_use_failure' }>;
    store.sessions.init({ sessionId: SESSION, platform: 'copilot', nowMs: T0 });
    return store.queue.enqueue({
      sessionId: SESSION,
      kind: 'observation',
      toolUseId: tool.tool_use_id ?? null,
      payload: { ...tool, at: T0 },
      toolEvent: toolEventRecord(tool),
      nowMs: T0,
    }).status;
  };

  it('finds session logs under session-state, by their folder’s session id', async () => {
    expect(hostOfTranscriptPath(`/h/.copilot/session-state/${SESSION}/events.jsonl`)).toBe('copilot');
    expect(copilotSessionIdOfPath(`/h/.copilot/session-state/${SESSION}/events.jsonl`)).toBe(SESSION);
    expect(hostOfTranscriptPath('/h/.copilot/session-state/not-a-session/events.jsonl')).toBe('claude-code');
    expect(defaultHostTranscriptRoot('copilot', {}, '/home/u')).toBe('/home/u/.copilot/session-state');
    expect(defaultHostTranscriptRoot('copilot', { COPILOT_HOME: '/elsewhere' }, '/home/u')).toBe('/elsewhere/session-state');
    // A session folder Copilot has not written a log into yet, and a stray file, are skipped.
    fs.mkdirSync(path.join(temp.dir, 'session-state', '0b1c2d3e-0000-4000-8000-000000000000'));
    fs.writeFileSync(path.join(temp.dir, 'session-state', 'session-store.db'), '');
    const found = await discoverHostTranscripts('copilot', path.join(temp.dir, 'session-state'));
    expect(found.targets.map((t) => [t.sessionId, t.host])).toEqual([[SESSION, 'copilot']]);
    // One session's own folder works too.
    expect((await discoverHostTranscripts('copilot', path.dirname(eventsFile))).targets).toHaveLength(1);
  });

  it('mines every finished call with its own id, the failing cat and the missing file as failures, and the turn’s final text', async () => {
    const report = await mine();
    expect(report).toMatchObject({ outcome: 'mined', eventsQueued: 5, eventsDuplicate: 0, summaryQueued: true });
    const events = tools();
    expect(events.map((e) => e.id)).toEqual(REAL_IDS);
    expect(events.map((e) => [e.kind, e.tool_name])).toEqual([
      ['post_tool_use', 'bash'],
      ['post_tool_use', 'view'],
      ['post_tool_use', 'edit'],
      ['post_tool_use_failure', 'bash'],
      ['post_tool_use_failure', 'view'],
    ]);
    expect(events[3]).toMatchObject({ exit_code: 1, error: 'Exit code 1\ncat: does-not-exist.txt: No such file or directory', platform: 'copilot' });
    expect(events[4]).toMatchObject({ error: 'Path does not exist' });
    expect(events[0].tool_response).toEqual({ resultType: 'success', textResultForLlm: 'hi\n<shellId: 0 completed with exit code 0>' });
    const summary = store.db.prepare("SELECT payload FROM queue WHERE kind = 'summary'").get() as { payload: string };
    expect(JSON.parse(summary.payload)).toMatchObject({ last_assistant_message: FINAL, source: 'transcript' });
    expect(store.sessions.get(SESSION)).toMatchObject({ platform: 'copilot', prompt: 'Create out.txt, read it, edit it, then cat a missing file.' });
    // Changed again (Copilot appends), nothing is queued twice.
    fs.appendFileSync(eventsFile, '\n');
    expect(await mine()).toMatchObject({ eventsQueued: 0, eventsDuplicate: 5 });
  });

  it('recognises the calls the hooks delivered under their provisional ids, queues only the rest, and names the delivered ones by their own ids', async () => {
    for (const { event, payload } of toolHooks.slice(0, 3)) expect(deliver(event, payload)).toBe('queued');
    expect(shown()).toEqual(
      toolHooks.slice(0, 3).map(({ event, payload }) => (copilotAdapter.toEvent(event, payload, {}) as { event: { tool_use_id: string } }).event.tool_use_id),
    );
    const report = await mine();
    expect(report).toMatchObject({ eventsQueued: 2, eventsDuplicate: 3 });
    expect(tools()).toHaveLength(5);
    expect(shown()).toEqual(REAL_IDS);
    // The hook of a killed session's last calls arrives late (replayed from the spool): known already.
    for (const { event, payload } of toolHooks.slice(3)) expect(deliver(event, payload)).toBe('duplicate');
    // And a later pass finds everything queued, whichever name it asks by.
    fs.appendFileSync(eventsFile, '\n');
    expect(await mine()).toMatchObject({ eventsQueued: 0, eventsDuplicate: 5 });
    expect(tools()).toHaveLength(5);
  });

  it('mines what a killed session wrote: finished calls only, no summary without a final text', async () => {
    const lines = fs.readFileSync(eventsFile, 'utf8').split('\n');
    // Killed while the failing cat ran: its completion and everything after it were never written.
    const cut = lines.findIndex((l) => l.includes('"type":"tool.execution_complete"') && l.includes('call_3ebb8b024b5b6d5e'));
    fs.writeFileSync(eventsFile, `${lines.slice(0, cut).join('\n')}\n`);
    expect(await mine()).toMatchObject({ eventsQueued: 3 });
    expect(tools().map((e) => e.id)).toEqual(REAL_IDS.slice(0, 3));
  });

  it('is mined by the worker’s watcher from Copilot’s session-state folder once it is idle (a missing folder is no problem)', async () => {
    const timers = { setTimeout: () => ({ cancel: () => undefined }) };
    // A moment after Copilot last wrote the log: it is idle.
    const later = fs.statSync(eventsFile).mtimeMs + 1;
    const watcher = startTranscriptWatcher(
      {
        dirs: [],
        hostDirs: [
          { host: 'copilot', dir: path.join(temp.dir, 'session-state') },
          { host: 'copilot', dir: path.join(temp.dir, 'not-installed') },
        ],
        intervalMs: 60_000,
        idleMs: 0,
        firstPassDelayMs: 60_000,
        catchUpDelayMs: 1_000,
      },
      {
        store,
        clock: { now: () => later },
        log: silentLogger,
        telemetry: { recordCounters: () => undefined, captureException: () => undefined },
        wake: () => undefined,
        projectOf: createProjectResolver(),
        timers,
      },
    );
    try {
      const report = await watcher.runPass();
      expect(report).toMatchObject({ eventsQueued: 5, failures: [] });
      expect(tools().map((e) => e.id)).toEqual(REAL_IDS);
    } finally {
      await watcher.stop();
    }
  });
});
