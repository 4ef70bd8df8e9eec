import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProjectResolver } from '../../src/worker/project-of.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createMiner, createStoreMiningStore, segmentKey } from '../../src/mining/index.js';
import { makeTempDir } from '../support/temp-dir.js';

/** Projects by repository root, as the worker keys them. */
const projectOf = createProjectResolver();

/**
 * Transcripts and hook payloads captured from the real Claude Code CLI (test/fixtures/claude-code,
 * see its README): a session with Bash, Read, Edit and a failing Bash, then `/compact` and one more
 * prompt. transcript-basic.jsonl is the file before the compaction, a byte prefix of the other.
 */
const FIXTURES = path.resolve('test/fixtures/claude-code');
const SESSION = '11111111-2222-4333-8444-555555555555';
const present = fs.existsSync(path.join(FIXTURES, 'transcript-compact.jsonl'));

describe.skipIf(!present)('mining real Claude Code transcripts', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let file: string;
  beforeEach(() => {
    temp = makeTempDir();
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    file = path.join(temp.dir, `${SESSION}.jsonl`);
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });

  const miner = () => createMiner({}, { store: createStoreMiningStore(store, { projectOf }), now: () => Date.UTC(2026, 0, 1), wake: () => undefined });
  const target = () => {
    const stat = fs.statSync(file);
    return { path: file, sessionId: SESSION, size: stat.size, mtimeMs: stat.mtimeMs };
  };
  const hook = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, 'hooks', name), 'utf8')) as Record<string, any>;
  const payloads = () =>
    new Map(
      (
        store.db.prepare("SELECT tool_use_id, payload FROM queue WHERE kind = 'observation' ORDER BY id").all() as Array<{
          tool_use_id: string;
          payload: string;
        }>
      ).map((r) => [r.tool_use_id, JSON.parse(r.payload)]),
    );

  it('queues every tool call with the tool_response its PostToolUse hook received', async () => {
    fs.copyFileSync(path.join(FIXTURES, 'transcript-compact.jsonl'), file);
    const report = await miner().mineFile(target());
    expect(report).toMatchObject({ outcome: 'mined', segments: 2, segmentsMined: 2, eventsQueued: 4, summaryQueued: true });
    expect(report.counts.corruptLines).toBe(0);
    const mined = payloads();
    for (const name of ['post-tool-use-bash.json', 'post-tool-use-read.json', 'post-tool-use-edit.json']) {
      const h = hook(name);
      expect(mined.get(h.tool_use_id)).toMatchObject({
        tool_name: h.tool_name,
        tool_input: h.tool_input,
        tool_response: h.tool_response,
        cwd: h.cwd,
        source: 'transcript',
      });
    }
    const failure = hook('post-tool-use-failure-bash.json');
    expect(mined.get(failure.tool_use_id)).toMatchObject({ kind: 'post_tool_use_failure', tool_name: 'Bash', tool_input: failure.tool_input });
    expect(mined.get(failure.tool_use_id).error).toContain(failure.error);
    expect(store.sessions.get(SESSION)).toMatchObject({ project: '/home/user/project', prompt: expect.stringContaining('Say hi') });
  });

  it('mines the session before /compact, then only the new segment once the file grows', async () => {
    fs.copyFileSync(path.join(FIXTURES, 'transcript-basic.jsonl'), file);
    const m = miner();
    expect(await m.mineFile(target())).toMatchObject({ segments: 1, eventsQueued: 4 });
    fs.appendFileSync(file, fs.readFileSync(path.join(FIXTURES, 'transcript-compact.jsonl')).subarray(fs.statSync(file).size));
    const grown = await m.mineFile(target());
    expect(grown).toMatchObject({ outcome: 'mined', segments: 2, segmentsMined: 2, eventsQueued: 0 });
    const keys = (store.db.prepare('SELECT key FROM mined_transcript_keys ORDER BY key').all() as Array<{ key: string }>).map((r) => r.key);
    expect(keys).toEqual([segmentKey(SESSION, 0), segmentKey(SESSION, 1)]);
  });
});
