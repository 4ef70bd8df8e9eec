/**
 * Mining OpenCode's SQLite store and pi's session files (the real rows and file of
 * test/fixtures/hosts/{opencode,pi}/captured): the same tool events the plugin and extension
 * deliver, failures as failures, a killed session's unfinished call left out, nothing queued twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCodeAdapter } from '../../src/hosts/opencode/adapter.js';
import { piAdapter } from '../../src/hosts/pi/adapter.js';
import { isToolEvent, type HookEvent } from '../../src/hosts/index.js';
import { createMiner, createStoreMiningStore, discoverHostTranscripts, hostOfTranscriptPath } from '../../src/mining/index.js';
import { toolEventRecord } from '../../src/observer/tool-evidence.js';
import { openStore, type Store } from '../../src/store/index.js';
import { sqliteDriver } from '../../src/store/sqlite-driver.js';
import { createProjectResolver } from '../../src/worker/project-of.js';
import { capturedFile, capturedRows, capturedStream } from '../support/in-process-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 10, 29, 1, 0, 0);
const OC_SESSION = 'ses_ddbb1cf0affe5QmGFXt8o1DXVb';
const PI_SESSION = '01a22454-b6a8-77cc-a9bf-3f24b40282d4';
const PI_NAME = `2026-11-28T22-44-21-288Z_${PI_SESSION}.jsonl`;

/** An OpenCode store holding the captured run's rows (the tables and columns mining reads). */
function openCodeStore(file: string, extra: (db: any) => void = () => undefined): void {
  const db = new (sqliteDriver())(file);
  db.exec(`CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT NOT NULL, time_updated INTEGER NOT NULL);
           CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, data TEXT NOT NULL);
           CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
           PRAGMA journal_mode = WAL;`);
  for (const s of capturedRows('opencode', 'db-session.jsonl'))
    db.prepare('INSERT INTO session VALUES (?, ?, ?, ?)').run(s.id, s.parent_id, '/work/shop', s.time_updated);
  for (const m of capturedRows('opencode', 'db-message.jsonl'))
    db.prepare('INSERT INTO message VALUES (?, ?, ?, ?)').run(m.id, m.session_id, m.time_created, m.data);
  for (const p of capturedRows('opencode', 'db-part.jsonl'))
    db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)').run(p.id, p.message_id, p.session_id, p.time_created, p.time_updated ?? p.time_created, p.data);
  extra(db);
  db.close();
}

describe('mining OpenCode’s store and pi’s session files', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    temp = makeTempDir();
    store = openStore(path.join(temp.dir, 'memtrace.db'));
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });

  const miner = () => createMiner({}, { store: createStoreMiningStore(store, { projectOf: createProjectResolver() }), now: () => T0, wake: () => undefined });
  const queued = () =>
    (store.db.prepare('SELECT tool_use_id, payload FROM queue ORDER BY id').all() as Array<{ tool_use_id: string | null; payload: string }>).map((r) => ({
      id: r.tool_use_id,
      ...JSON.parse(r.payload),
    }));
  const deliver = (event: HookEvent) => {
    if (!isToolEvent(event)) throw new Error('not a tool event');
    store.sessions.init({ sessionId: event.session_id, platform: event.platform ?? null, nowMs: T0 });
    store.queue.enqueue({
      sessionId: event.session_id,
      kind: 'observation',
      toolUseId: event.tool_use_id ?? null,
      payload: { ...event, at: T0 },
      toolEvent: toolEventRecord(event),
      nowMs: T0,
    });
  };

  it('tells OpenCode sessions and pi session files from the other hosts’ transcripts', () => {
    expect(hostOfTranscriptPath(`/h/.local/share/opencode/opencode.db#${OC_SESSION}`)).toBe('opencode');
    expect(hostOfTranscriptPath(`/h/.pi/agent/sessions/--work-shop--/${PI_NAME}`)).toBe('pi');
    expect(hostOfTranscriptPath('/h/.claude/projects/-p/0b1c2d3e-0000-4000-8000-000000000000.jsonl')).toBe('claude-code');
  });

  it('mines an OpenCode session from its store as the plugin delivers it: ids, inputs, results, both failures, the prompt and the final text', async () => {
    const db = path.join(temp.dir, 'opencode', 'opencode.db');
    fs.mkdirSync(path.dirname(db));
    openCodeStore(db);
    const found = await discoverHostTranscripts('opencode', path.dirname(db));
    expect(found.targets).toEqual([expect.objectContaining({ path: `${db}#${OC_SESSION}`, sessionId: OC_SESSION, host: 'opencode' })]);
    const report = await miner().mineFile(found.targets[0]!);
    expect(report).toMatchObject({ outcome: 'mined', eventsQueued: 5, summaryQueued: true });
    const tools = queued().filter((e) => e.kind !== 'stop');
    expect(tools.map((e) => [e.tool_name, e.kind])).toEqual([
      ['bash', 'post_tool_use'],
      ['read', 'post_tool_use'],
      ['edit', 'post_tool_use'],
      ['bash', 'post_tool_use_failure'],
      ['read', 'post_tool_use_failure'],
    ]);
    // The same event the plugin's tool.execute.after gives the adapter.
    const after = capturedStream('opencode').find((c) => c.name === 'tool.execute.after')!.data;
    const hooked = openCodeAdapter.toEvent('tool.execute.after', { ...after, directory: '/work/shop' }, {});
    if (!hooked.ok || !hooked.event || !isToolEvent(hooked.event)) throw new Error('no event');
    expect(tools[0]).toMatchObject({ tool_input: hooked.event.tool_input, tool_response: { output: 'hi\n', metadata: { exit: 0 } }, platform: 'opencode' });
    expect(tools[3]).toMatchObject({ exit_code: 1 });
    expect(tools[4]!.error).toMatch(/^File not found/);
    expect(store.sessions.get(OC_SESSION)).toMatchObject({ platform: 'opencode', prompt: 'Create out.txt, read it, edit it, then cat a missing file.' });
    expect(queued().at(-1)).toMatchObject({
      kind: 'stop',
      last_assistant_message: 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.',
    });
    // Unchanged since: one query, nothing read.
    const again = await discoverHostTranscripts('opencode', db);
    expect((await miner().mineFile(again.targets[0]!)).outcome).toBe('unchanged');
  });

  it('leaves out a call still running when OpenCode was killed, files a subagent’s calls under its parent, and queues only what the plugin missed', async () => {
    const db = path.join(temp.dir, 'opencode.db');
    openCodeStore(db, (d) => {
      d.prepare('INSERT INTO session VALUES (?, ?, ?, ?)').run('ses_child', OC_SESSION, '/work/shop', T0);
      const tool = (callID: string, status: string) => JSON.stringify({ type: 'tool', tool: 'bash', callID, state: { status, input: { command: 'sleep 9' } } });
      d.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)').run('prt_z1', 'msg_z', OC_SESSION, T0, T0, tool('call_running', 'running'));
      d.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)').run('prt_z2', 'msg_c', 'ses_child', T0, T0, tool('call_child', 'completed'));
    });
    const afters = capturedStream('opencode').filter((c) => c.name === 'tool.execute.after');
    for (const after of afters.slice(0, 3)) {
      const hooked = openCodeAdapter.toEvent('tool.execute.after', { ...after.data, directory: '/work/shop' }, {});
      if (hooked.ok && hooked.event) deliver(hooked.event);
    }
    const found = await discoverHostTranscripts('opencode', db);
    expect(found.targets.map((t) => t.sessionId)).toEqual([OC_SESSION]);
    expect(await miner().mineFile(found.targets[0]!)).toMatchObject({ eventsQueued: 3, eventsDuplicate: 3 });
    const mined = queued().filter((e) => e.source === 'transcript' && e.kind !== 'stop');
    expect(mined.map((e) => e.id)).toEqual([afters[3]!.data.input.callID, expect.stringMatching(/^call_/), 'call_child']);
    expect(mined.at(-1)).toMatchObject({ agent_id: 'ses_child' });
    expect(mined.map((e) => e.id)).not.toContain('call_running');
  });

  it('mines a pi session file as the extension delivers it, and only what the extension missed', async () => {
    const dir = path.join(temp.dir, 'sessions', '--work-shop--');
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(capturedFile('pi', 'transcript-session.jsonl'), path.join(dir, PI_NAME));
    const results = capturedStream('pi').filter((c) => c.name === 'tool_result');
    for (const result of results.slice(0, 2)) {
      const hooked = piAdapter.toEvent('tool_result', result.data, {});
      if (hooked.ok && hooked.event) deliver(hooked.event);
    }
    const found = await discoverHostTranscripts('pi', path.join(temp.dir, 'sessions'));
    expect(found.targets).toEqual([expect.objectContaining({ sessionId: PI_SESSION, host: 'pi' })]);
    expect(await miner().mineFile(found.targets[0]!)).toMatchObject({ outcome: 'mined', eventsQueued: 3, eventsDuplicate: 2 });
    const mined = queued().filter((e) => e.source === 'transcript' && e.kind !== 'stop');
    expect(mined.map((e) => [e.id, e.kind])).toEqual(
      results.slice(2).map((r, i) => [r.data.event.toolCallId, i === 0 ? 'post_tool_use' : 'post_tool_use_failure']),
    );
    expect(mined[1]).toMatchObject({ exit_code: 1, tool_input: { command: 'cat does-not-exist.txt' } });
    const hookedEdit = piAdapter.toEvent('tool_result', results[2]!.data, {});
    if (!hookedEdit.ok || !hookedEdit.event || !isToolEvent(hookedEdit.event)) throw new Error('no event');
    expect(mined[0]).toMatchObject({ tool_input: hookedEdit.event.tool_input });
  });

  it('leaves out a pi call whose result never came (the session was killed during it), skips a garbled line, and takes the session’s prompt and directory', async () => {
    const lines = fs.readFileSync(capturedFile('pi', 'transcript-session.jsonl'), 'utf8').split('\n').filter(Boolean);
    const lastResult = lines.findLastIndex((l) => l.includes('"role":"toolResult"'));
    // Killed while the last call ran: its result never written, the line being written cut short.
    const killed = [...lines.slice(0, 3), '{"type":"message","id":"x", garbled', ...lines.slice(3, lastResult), lines[lastResult]!.slice(0, 40)].join('\n');
    const file = path.join(temp.dir, PI_NAME);
    fs.writeFileSync(file, killed);
    const stat = fs.statSync(file);
    const report = await miner().mineFile({ path: file, sessionId: PI_SESSION, size: stat.size, mtimeMs: stat.mtimeMs });
    expect(report).toMatchObject({ outcome: 'mined', eventsQueued: 4 });
    expect(report.counts.corruptLines).toBe(1);
    expect(store.sessions.get(PI_SESSION)).toMatchObject({
      platform: 'pi',
      cwd: '${HOSTS_CACHE:-/tmp/hosts-cache}/run-pi-final/proj',
      prompt: 'Create out.txt, read it, edit it, then cat a missing file.',
    });
  });
});
