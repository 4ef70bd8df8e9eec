/**
 * Subagents' transcripts (issue 29, item 3): `<session-id>/subagents/agent-<id>.jsonl` is mined
 * into its session, each tool call named by the subagent that made it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMiner, createStoreMiningStore, segmentKey } from '../../src/mining/index.js';
import { discoverTranscripts } from '../../src/mining/discover.js';
import { subagentKeyId } from '../../src/mining/subagent-transcript.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createProjectResolver } from '../../src/worker/project-of.js';
import { makeTempDir } from '../support/temp-dir.js';
import { TranscriptBuilder } from '../support/transcripts.js';

const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);

describe("mining subagents' transcripts", () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    temp = makeTempDir('memtrace-subagents-');
    store = openStore(path.join(temp.dir, 'memtrace.db'));
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });

  /** A projects folder with one session, its subagent (and its meta file), and a tool-results folder. */
  function writeSession() {
    const projects = path.join(temp.dir, 'projects');
    const folder = path.join(projects, '-work-app');
    const main = new TranscriptBuilder(undefined, '/work/app', T0);
    main.prompt('map the payment endpoints');
    const mainCall = main.call('Bash', { command: 'ls src' });
    main.text('I will ask a subagent to look around.');
    const sub = new TranscriptBuilder(main.sessionId, '/work/app', T0 + 10_000);
    sub.agentId = 'a1b2c3d4';
    sub.prompt('Find every payment endpoint');
    const subRead = sub.call('Read', { file_path: '/work/app/src/pay.ts' }, { type: 'text', file: { filePath: '/work/app/src/pay.ts', content: 'x' } });
    const subGrep = sub.call('Grep', { pattern: 'router.post' });
    sub.text('Found three endpoints.');
    const sessionDir = path.join(folder, main.sessionId);
    fs.mkdirSync(path.join(sessionDir, 'subagents'), { recursive: true });
    fs.mkdirSync(path.join(sessionDir, 'tool-results'), { recursive: true });
    fs.writeFileSync(path.join(sessionDir, 'tool-results', 'toolu_x.txt'), 'big output');
    main.writeTo(path.join(folder, `${main.sessionId}.jsonl`));
    sub.writeTo(path.join(sessionDir, 'subagents', 'agent-a1b2c3d4.jsonl'));
    fs.writeFileSync(
      path.join(sessionDir, 'subagents', 'agent-a1b2c3d4.meta.json'),
      JSON.stringify({ agentType: 'Explore', description: 'Map endpoints', spawnDepth: 1 }),
    );
    return { projects, main, sub, mainCall, subRead, subGrep, subFile: path.join(sessionDir, 'subagents', 'agent-a1b2c3d4.jsonl') };
  }

  it('finds them beside their session, mines their calls into it named by the subagent, and keys them apart', async () => {
    const s = writeSession();
    const found = await discoverTranscripts([s.projects]);
    expect(found.problems).toEqual([]);
    expect(found.targets.map((t) => ({ path: path.relative(s.projects, t.path), sessionId: t.sessionId, agent: t.agent }))).toEqual(
      expect.arrayContaining([
        { path: `-work-app/${s.main.sessionId}.jsonl`, sessionId: s.main.sessionId, agent: undefined },
        { path: `-work-app/${s.main.sessionId}/subagents/agent-a1b2c3d4.jsonl`, sessionId: s.main.sessionId, agent: { id: 'a1b2c3d4' } },
      ]),
    );
    expect(found.targets).toHaveLength(2);

    // The hooks already delivered one of the subagent's calls: mining must not queue it again.
    store.queue.enqueue({
      sessionId: s.main.sessionId,
      kind: 'observation',
      toolUseId: s.subGrep,
      payload: { kind: 'post_tool_use', session_id: s.main.sessionId, tool_name: 'Grep', tool_input: {}, tool_response: {}, agent_id: 'a1b2c3d4', at: T0 },
      nowMs: T0,
    });
    const miner = createMiner({}, { store: createStoreMiningStore(store, { projectOf: createProjectResolver() }), now: () => T0, wake: () => undefined });
    const report = await miner.pass(found.targets);
    expect(report.byOutcome).toMatchObject({ mined: 2, failed: 0 });

    const rows = store.db.prepare('SELECT tool_use_id, payload FROM queue WHERE session_id = ? ORDER BY id').all(s.main.sessionId) as Array<{
      tool_use_id: string | null;
      payload: string;
    }>;
    const byId = new Map(rows.map((r) => [r.tool_use_id, JSON.parse(r.payload) as Record<string, unknown>]));
    expect(byId.get(s.mainCall)).not.toHaveProperty('agent_id');
    expect(byId.get(s.subRead)).toMatchObject({ tool_name: 'Read', agent_id: 'a1b2c3d4', agent_type: 'Explore', source: 'transcript' });
    expect(rows.filter((r) => r.tool_use_id === s.subGrep)).toHaveLength(1);
    const events = store.db.prepare('SELECT tool_use_id, agent_id, agent_type FROM tool_events ORDER BY queue_id').all();
    expect(events).toContainEqual({ tool_use_id: s.subRead, agent_id: 'a1b2c3d4', agent_type: 'Explore' });
    expect(events).toContainEqual({ tool_use_id: s.mainCall, agent_id: null, agent_type: null });
    // The session is the main transcript's: its prompt, not the subagent's task.
    expect(store.sessions.get(s.main.sessionId)).toMatchObject({ prompt: 'map the payment endpoints', project: '/work/app' });
    const keys = (store.db.prepare('SELECT key FROM mined_transcript_keys ORDER BY key').all() as Array<{ key: string }>).map((r) => r.key);
    expect(keys).toEqual([segmentKey(s.main.sessionId, 0), segmentKey(subagentKeyId(s.main.sessionId, 'a1b2c3d4'), 0)].sort());

    // Nothing changed: nothing is read or queued again.
    const again = await miner.pass((await discoverTranscripts([s.projects])).targets);
    expect(again.byOutcome).toMatchObject({ unchanged: 2, mined: 0 });
    expect(again.eventsQueued).toBe(0);
  });

  it('keeps mining a subagent transcript whose meta file is missing, with no type', async () => {
    const s = writeSession();
    fs.rmSync(s.subFile.replace(/\.jsonl$/, '.meta.json'));
    const miner = createMiner({}, { store: createStoreMiningStore(store, { projectOf: createProjectResolver() }), now: () => T0, wake: () => undefined });
    const stat = fs.statSync(s.subFile);
    await miner.mineFile({ path: s.subFile, sessionId: s.main.sessionId, size: stat.size, mtimeMs: stat.mtimeMs, agent: { id: 'a1b2c3d4' } });
    const payload = JSON.parse((store.db.prepare('SELECT payload FROM queue WHERE tool_use_id = ?').get(s.subRead) as { payload: string }).payload);
    expect(payload).toMatchObject({ agent_id: 'a1b2c3d4' });
    expect(payload).not.toHaveProperty('agent_type');
    // A subagent's file asks for no session summary: that is the main transcript's to do.
    expect(store.db.prepare("SELECT count(*) AS n FROM queue WHERE kind = 'summary'").get()).toEqual({ n: 0 });
  });
});

describe('a transcript the hooks reported', () => {
  it("brings its subagents' transcripts along", async () => {
    const temp = makeTempDir('memtrace-subagents-reported-');
    try {
      const file = path.join(temp.dir, 'abc.jsonl');
      fs.writeFileSync(file, '');
      fs.mkdirSync(path.join(temp.dir, 'abc', 'subagents'), { recursive: true });
      fs.writeFileSync(path.join(temp.dir, 'abc', 'subagents', 'agent-f00d.jsonl'), '');
      const found = await discoverTranscripts([], [{ path: file, sessionId: 'abc' }]);
      expect(found.targets.map((t) => [path.basename(t.path), t.sessionId, t.agent?.id ?? null])).toEqual([
        ['abc.jsonl', 'abc', null],
        ['agent-f00d.jsonl', 'abc', 'f00d'],
      ]);
    } finally {
      temp.cleanup();
    }
  });
});
