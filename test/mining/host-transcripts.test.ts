/**
 * Mining Gemini CLI chat files and Codex rollouts (the real files of test/fixtures/hosts): the
 * same tool events the hooks deliver, failures as failures, and nothing queued twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexAdapter } from '../../src/hosts/codex/adapter.js';
import { geminiCliAdapter } from '../../src/hosts/gemini-cli/adapter.js';
import { adapterDepsFor, isToolEvent, type HookEvent } from '../../src/hosts/index.js';
import { createMiner, createStoreMiningStore, discoverHostTranscripts, hostOfTranscriptPath, type TranscriptTarget } from '../../src/mining/index.js';
import { toolEventRecord } from '../../src/observer/tool-evidence.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createProjectResolver } from '../../src/worker/project-of.js';
import { hostPayloads, hostTranscript } from '../support/host-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 10, 25, 15, 0, 0);
const codexSession = hostPayloads('codex', 'session');
const geminiSession = hostPayloads('gemini-cli', 'session');
const CODEX_ID = codexSession[0]!.payload.session_id as string;
const GEMINI_ID = geminiSession[0]!.payload.session_id as string;

describe('mining Gemini CLI and Codex transcripts', () => {
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
  /** The fixtures' names are not the hosts' own, so the host is given. */
  const target = (file: string, sessionId: string, host: 'gemini-cli' | 'codex'): TranscriptTarget => {
    const stat = fs.statSync(file);
    return { path: file, sessionId, size: stat.size, mtimeMs: stat.mtimeMs, host };
  };
  const queued = () =>
    (store.db.prepare('SELECT tool_use_id, payload FROM queue ORDER BY id').all() as Array<{ tool_use_id: string | null; payload: string }>).map((r) => ({
      id: r.tool_use_id,
      ...JSON.parse(r.payload),
    }));
  /** A hook event delivered as the worker takes it. */
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

  it('tells the hosts’ transcripts apart by their paths', () => {
    expect(hostOfTranscriptPath('/h/.codex/sessions/2026/11/25/rollout-2026-11-25T14-15-06-01a2130f-66fb-7693-94f2-87b185bc8b9b.jsonl')).toBe('codex');
    expect(hostOfTranscriptPath('/h/.gemini/tmp/proj/chats/session-2026-11-25T14-14-bbb48c99.jsonl')).toBe('gemini-cli');
    expect(hostOfTranscriptPath('/h/.claude/projects/-p/0b1c2d3e-0000-4000-8000-000000000000.jsonl')).toBe('claude-code');
  });

  it('mines a Codex rollout into the events its PostToolUse hook delivers: same ids, names, inputs and responses; the failing cat a failure', async () => {
    const report = await miner().mineFile(target(hostTranscript('codex', 'rollout.jsonl'), CODEX_ID, 'codex'));
    expect(report).toMatchObject({ outcome: 'mined', eventsQueued: 4, eventsDuplicate: 0, summaryQueued: true });
    const tools = queued().filter((e) => e.kind !== 'stop');
    const hooked = codexSession.filter((s) => s.event === 'PostToolUse').map((s) => s.payload);
    expect(tools.map((e) => [e.id, e.tool_name, e.tool_input, e.tool_response])).toEqual(
      hooked.map((p) => [p.tool_use_id, p.tool_name, p.tool_input, p.tool_response]),
    );
    expect(tools.map((e) => e.kind)).toEqual(['post_tool_use', 'post_tool_use', 'post_tool_use', 'post_tool_use_failure']);
    expect(tools[3]).toMatchObject({ exit_code: 1, platform: 'codex', source: 'transcript' });
    expect(store.sessions.get(CODEX_ID)).toMatchObject({
      platform: 'codex',
      cwd: '/tmp/hr-codex3/proj',
      prompt: 'Create out.txt, read it, edit it, then cat a missing file.',
    });
    expect(queued().at(-1)).toMatchObject({
      kind: 'stop',
      last_assistant_message: 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.',
    });
  });

  it('queues only the Codex calls the hooks missed', async () => {
    const deps = adapterDepsFor('codex');
    const rollout = hostTranscript('codex', 'rollout.jsonl');
    const posts = codexSession.filter((s) => s.event === 'PostToolUse');
    for (const [i, post] of posts.entries()) {
      if (i === 1) continue; // this hook never reached the worker
      const result = codexAdapter.toEvent('PostToolUse', { ...post.payload, transcript_path: rollout }, deps);
      if (result.ok && result.event) deliver(result.event);
    }
    const report = await miner().mineFile(target(rollout, CODEX_ID, 'codex'));
    expect(report).toMatchObject({ eventsQueued: 1, eventsDuplicate: 3 });
    expect(
      queued()
        .filter((e) => e.source === 'transcript' && e.kind !== 'stop')
        .map((e) => e.id),
    ).toEqual([posts[1]!.payload.tool_use_id]);
    // Unchanged since: one stat, nothing read.
    expect((await miner().mineFile(target(rollout, CODEX_ID, 'codex'))).outcome).toBe('unchanged');
  });

  it('mines a Gemini chat file: every finished call, rewritten records read once, failures from tool errors and exit codes', async () => {
    const report = await miner().mineFile(target(hostTranscript('gemini-cli', 'chat.jsonl'), GEMINI_ID, 'gemini-cli'));
    expect(report).toMatchObject({ outcome: 'mined', eventsQueued: 5 });
    const tools = queued().filter((e) => e.kind !== 'stop');
    const hooked = geminiSession.filter((s) => s.event === 'AfterTool').map((s) => s.payload);
    expect(tools.map((e) => [e.tool_name, e.tool_input])).toEqual(hooked.map((p) => [p.tool_name, p.tool_input]));
    expect(tools.map((e) => e.kind)).toEqual(['post_tool_use', 'post_tool_use', 'post_tool_use', 'post_tool_use_failure', 'post_tool_use_failure']);
    expect(tools[3]).toMatchObject({ exit_code: 1, error: 'Exit code 1\ncat: does-not-exist.txt: No such file or directory' });
    expect(tools[4]!.error).toContain('File not found');
    expect(tools[3]!.tool_response.returnDisplay).toBe((hooked[3]!.tool_response as { returnDisplay: string }).returnDisplay);
    expect(store.sessions.get(GEMINI_ID)).toMatchObject({ platform: 'gemini-cli', prompt: 'Create out.txt, read it, edit it, then cat a missing file.' });
  });

  it('recognises a Gemini call its AfterTool hook delivered, by the id the hook derived from the chat file then', async () => {
    const failing = geminiSession[5]!;
    const result = geminiCliAdapter.toEvent(
      'AfterTool',
      { ...failing.payload, transcript_path: hostTranscript('gemini-cli', 'chat-at-06-AfterTool.jsonl') },
      adapterDepsFor('gemini-cli'),
    );
    if (!result.ok || !result.event) throw new Error('no event');
    deliver(result.event);
    const report = await miner().mineFile(target(hostTranscript('gemini-cli', 'chat.jsonl'), GEMINI_ID, 'gemini-cli'));
    expect(report).toMatchObject({ eventsQueued: 4, eventsDuplicate: 1 });
    expect(
      queued()
        .filter((e) => e.source === 'transcript' && e.kind !== 'stop')
        .map((e) => e.tool_input.command ?? e.tool_input.file_path),
    ).not.toContain('cat does-not-exist.txt');
  });

  it('finds the hosts’ transcripts in their folders, with their session ids', async () => {
    const gemini = path.join(temp.dir, 'gemini-tmp', 'proj', 'chats');
    fs.mkdirSync(gemini, { recursive: true });
    fs.copyFileSync(hostTranscript('gemini-cli', 'chat.jsonl'), path.join(gemini, 'session-2026-11-25T14-14-bbb48c99.jsonl'));
    fs.writeFileSync(path.join(temp.dir, 'gemini-tmp', 'proj', '.project_root'), '/tmp/hr-gem3/proj\n');
    const codex = path.join(temp.dir, 'codex-sessions', '2026', '11', '25');
    fs.mkdirSync(codex, { recursive: true });
    fs.copyFileSync(hostTranscript('codex', 'rollout.jsonl'), path.join(codex, `rollout-2026-11-25T14-15-06-${CODEX_ID}.jsonl`));
    const g = await discoverHostTranscripts('gemini-cli', path.join(temp.dir, 'gemini-tmp'));
    const c = await discoverHostTranscripts('codex', path.join(temp.dir, 'codex-sessions'));
    expect(g.targets.map((t) => [t.sessionId, t.host])).toEqual([[GEMINI_ID, 'gemini-cli']]);
    expect(c.targets.map((t) => [t.sessionId, t.host])).toEqual([[CODEX_ID, 'codex']]);
    const report = await miner().pass([...g.targets, ...c.targets]);
    expect(report).toMatchObject({ files: 2, eventsQueued: 9 });
    expect(store.sessions.get(GEMINI_ID)?.cwd).toBe('/tmp/hr-gem3/proj');
    expect((await discoverHostTranscripts('codex', path.join(temp.dir, 'nope'))).problems).toEqual([
      { path: path.join(temp.dir, 'nope'), error: 'no such directory' },
    ]);
  });

  it('reads a Gemini chat file’s session id once for the watcher, not at every pass, and forgets a file that is gone', async () => {
    const root = path.join(temp.dir, 'gemini-tmp');
    const chats = path.join(root, 'proj', 'chats');
    fs.mkdirSync(chats, { recursive: true });
    const file = path.join(chats, 'session-2026-11-25T14-14-bbb48c99.jsonl');
    fs.copyFileSync(hostTranscript('gemini-cli', 'chat.jsonl'), file);
    const known = new Map<string, string>();
    expect((await discoverHostTranscripts('gemini-cli', root, known)).targets.map((t) => t.sessionId)).toEqual([GEMINI_ID]);
    // Its first line is not read again: a pass that did would find no session id here.
    fs.writeFileSync(file, `not the metadata line\n${fs.readFileSync(hostTranscript('gemini-cli', 'chat.jsonl'), 'utf8')}`);
    expect((await discoverHostTranscripts('gemini-cli', root, known)).targets.map((t) => t.sessionId)).toEqual([GEMINI_ID]);
    expect((await discoverHostTranscripts('gemini-cli', root)).targets).toEqual([]);
    fs.rmSync(file);
    await discoverHostTranscripts('gemini-cli', root, known);
    expect(known.size).toBe(0);
  });
});
