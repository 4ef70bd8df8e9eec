import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProjectResolver } from '../../src/worker/project-of.js';
import { createBackoffMap } from '../../src/mining/backoff.js';
import { createMinedTranscripts, openStore, type Store } from '../../src/store/index.js';
import { createMiner, createStoreMiningStore, segmentKey, legacyKey, type FileReader, type TranscriptTarget } from '../../src/mining/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { TranscriptBuilder } from '../support/transcripts.js';
import { queuedToolUse } from '../support/queued-events.js';

/** Projects by repository root, as the worker keys them. */
const projectOf = createProjectResolver();

const T0 = Date.UTC(2025, 6, 1, 12, 0, 0);

describe('mining Claude Code transcripts', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let now: number;
  let woke: string[];
  let opened: number;
  let readsFrom: number[];

  beforeEach(() => {
    temp = makeTempDir();
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    now = T0;
    woke = [];
    opened = 0;
    readsFrom = [];
  });
  afterEach(() => {
    store.close();
    temp.cleanup();
  });

  /** Records which files were opened and where reading started (the real file underneath). */
  async function openFile(file: string): Promise<FileReader> {
    opened += 1;
    const handle = await fs.promises.open(file, 'r');
    let first = true;
    return {
      read: async (buffer, length, position) => {
        if (first && length > 1) readsFrom.push(position);
        if (length > 1) first = false;
        return (await handle.read(buffer, 0, length, position)).bytesRead;
      },
      close: () => handle.close(),
    };
  }

  const newMiner = (options: { maxLineBytes?: number; backoff?: ReturnType<typeof createBackoffMap> } = {}) =>
    createMiner(options.maxLineBytes ? { maxLineBytes: options.maxLineBytes } : {}, {
      store: createStoreMiningStore(store, { projectOf }),
      now: () => now,
      wake: (id) => woke.push(id),
      openFile,
      ...(options.backoff ? { backoff: options.backoff } : {}),
    });

  function target(t: TranscriptBuilder, file = path.join(temp.dir, `${t.sessionId}.jsonl`)): TranscriptTarget {
    const stat = fs.statSync(file);
    return { path: file, sessionId: t.sessionId, size: stat.size, mtimeMs: stat.mtimeMs };
  }
  const fileOf = (t: TranscriptBuilder) => path.join(temp.dir, `${t.sessionId}.jsonl`);
  const queued = (sessionId: string) =>
    (
      store.db.prepare('SELECT kind, tool_use_id, payload FROM queue WHERE session_id = ? ORDER BY id').all(sessionId) as Array<{
        kind: string;
        tool_use_id: string | null;
        payload: string;
      }>
    ).map((r) => ({
      kind: r.kind,
      toolUseId: r.tool_use_id,
      payload: JSON.parse(r.payload) as Record<string, any>,
    }));
  const observed = (sessionId: string) =>
    queued(sessionId)
      .filter((q) => q.kind === 'observation')
      .map((q) => q.toolUseId);
  const keys = (sessionId: string) =>
    (store.db.prepare('SELECT key FROM mined_transcript_keys WHERE session_id = ? ORDER BY key').all(sessionId) as Array<{ key: string }>).map((r) => r.key);

  it('mines both segments of a compacted transcript, then only the third when the file grows', async () => {
    const t = new TranscriptBuilder();
    t.snapshot();
    t.prompt('fix the login redirect');
    const a = t.call(
      'Read',
      { file_path: '/work/app/src/login.ts' },
      { type: 'text', file: { filePath: '/work/app/src/login.ts', content: 'export {}', numLines: 1, startLine: 1, totalLines: 1 } },
    );
    t.text('The redirect happens before the cookie is set.');
    t.compact();
    const b = t.call('Bash', { command: 'npm test' });
    const written = t.writeTo(fileOf(t));
    const miner = newMiner();

    const first = await miner.mineFile(target(t));
    expect(first).toMatchObject({ outcome: 'mined', segments: 2, segmentsMined: 2, eventsQueued: 2 });
    expect(observed(t.sessionId)).toEqual([a, b]);
    expect(keys(t.sessionId)).toEqual([segmentKey(t.sessionId, 0), segmentKey(t.sessionId, 1)]);
    expect(woke).toContain(t.sessionId);

    // The payload is what the hooks send for the same call, plus where it came from.
    const read = queued(t.sessionId)[0]!.payload;
    expect(read).toEqual({
      kind: 'post_tool_use',
      session_id: t.sessionId,
      platform: 'claude-code',
      tool_name: 'Read',
      tool_input: { file_path: '/work/app/src/login.ts' },
      tool_response: { type: 'text', file: { filePath: '/work/app/src/login.ts', content: 'export {}', numLines: 1, startLine: 1, totalLines: 1 } },
      cwd: '/work/app',
      at: expect.any(Number),
      source: 'transcript',
      transcript_path: fileOf(t),
    });
    expect(store.sessions.get(t.sessionId)).toMatchObject({ project: '/work/app', prompt: 'fix the login redirect', platform: 'claude-code' });

    // Unchanged: one stat by the caller, nothing opened.
    expect(await miner.mineFile(target(t))).toMatchObject({ outcome: 'unchanged', eventsQueued: 0 });
    expect(opened).toBe(1);

    const segment1Start = fs.readFileSync(fileOf(t)).indexOf('"compact_boundary"');
    t.compact({ trigger: 'manual' });
    const c = t.call('Edit', { file_path: '/work/app/src/login.ts', old_string: 'a', new_string: 'b' });
    t.appendTo(fileOf(t), written);
    now += 60_000;
    const minedAt = () => store.db.prepare('SELECT key, mined_at FROM mined_transcript_keys ORDER BY key').all();
    const before = minedAt();
    const third = await miner.mineFile(target(t));
    expect(third).toMatchObject({ outcome: 'mined', segments: 3, segmentsMined: 1, eventsQueued: 1 });
    expect(observed(t.sessionId)).toEqual([a, b, c]);
    expect(keys(t.sessionId)).toEqual([0, 1, 2].map((n) => segmentKey(t.sessionId, n)));
    expect(minedAt().slice(0, 2)).toEqual(before); // segments 0 and 1 were not mined again
    // Reading resumed at the open segment (1), not at the start of the file.
    expect(readsFrom.at(-1)).toBeGreaterThan(0);
    expect(readsFrom.at(-1)).toBeLessThan(segment1Start + 1);
    expect(readsFrom.at(-1)).toBeGreaterThan(segment1Start - 400);
  });

  it('keeps segment indices stable when the open segment grows without a compaction', async () => {
    const t = new TranscriptBuilder();
    t.prompt('go');
    t.call('Read', { file_path: 'a' });
    t.compact();
    t.call('Read', { file_path: 'b' });
    const written = t.writeTo(fileOf(t));
    const miner = newMiner();
    await miner.mineFile(target(t));
    const late = t.call('Bash', { command: 'ls' });
    t.appendTo(fileOf(t), written);
    const again = await miner.mineFile(target(t));
    expect(again).toMatchObject({ segments: 2, segmentsMined: 1, eventsQueued: 1 });
    expect(observed(t.sessionId).at(-1)).toBe(late);
    const rows = createMinedTranscripts(store.db).keysFor(t.sessionId).segments;
    expect([...rows.keys()]).toEqual([0, 1]);
    expect(rows.get(1)).toBe(fs.statSync(fileOf(t)).size);
    // A fresh miner (a restart) reads the cache from the store: still one segment count, nothing re-mined.
    const restarted = newMiner();
    expect(await restarted.mineFile(target(t))).toMatchObject({ outcome: 'unchanged' });
  });

  it('skips duplicated lines and counts a corrupt or truncated line without failing', async () => {
    const t = new TranscriptBuilder();
    t.prompt('go');
    const a = t.toolUse('Read', { file_path: 'a.ts' });
    const useLine = t.lines.length - 1;
    t.toolResult(a, { toolUseResult: { stdout: 'A' } });
    const resultLine = t.lines.length - 1;
    t.repeatLine(useLine);
    t.repeatLine(resultLine);
    t.raw('{"parentUuid":"x","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_cut","type":"tool_res');
    t.raw('this is not json');
    t.text('Done reading.');
    t.repeatLine(t.lines.length - 1);
    const b = t.call('Bash', { command: 'ls' });
    t.writeTo(fileOf(t));
    const report = await newMiner().mineFile(target(t));
    expect(report.outcome).toBe('mined');
    expect(report.counts.corruptLines).toBe(2);
    expect(observed(t.sessionId)).toEqual([a, b]);
    const summary = queued(t.sessionId).find((q) => q.kind === 'summary')!;
    expect(summary.payload.last_assistant_message).toBe('Done reading.');
  });

  it('treats a file that starts with a boundary as one segment whose summary line is not the prompt', async () => {
    const t = new TranscriptBuilder();
    t.compact();
    t.prompt('continue with the migration');
    const a = t.call('Write', { file_path: 'm.sql', content: 'ALTER TABLE x' });
    t.writeTo(fileOf(t));
    const report = await newMiner().mineFile(target(t));
    expect(report).toMatchObject({ outcome: 'mined', segments: 1, eventsQueued: 1 });
    expect(keys(t.sessionId)).toEqual([segmentKey(t.sessionId, 0)]);
    expect(observed(t.sessionId)).toEqual([a]);
    expect(store.sessions.get(t.sessionId)?.prompt).toBe('continue with the migration');
  });

  it('does not count preserved messages of a partial compaction twice', async () => {
    const t = new TranscriptBuilder();
    t.prompt('go');
    const a = t.toolUse('Read', { file_path: 'a' });
    const useLine = t.lines.length - 1;
    const head = JSON.parse(t.lines[useLine]!).uuid as string;
    t.toolResult(a, { toolUseResult: { stdout: 'A' } });
    const tail = JSON.parse(t.lines.at(-1)!).uuid as string;
    t.compact({ preserved: { headUuid: head, tailUuid: tail } });
    // Some versions write the preserved messages again after the boundary, same uuids.
    t.repeatLine(useLine);
    t.repeatLine(useLine + 1);
    const b = t.call('Bash', { command: 'ls' });
    t.writeTo(fileOf(t));
    const report = await newMiner().mineFile(target(t));
    expect(report).toMatchObject({ segments: 2, eventsQueued: 2 });
    expect(observed(t.sessionId)).toEqual([a, b]);
  });

  it('pairs parallel tool calls by id, whatever order their results come in', async () => {
    const t = new TranscriptBuilder();
    t.prompt('look at both');
    const message = t.newMessageId();
    t.thinking('Two reads at once.', message);
    const x = t.toolUse('Read', { file_path: 'x.ts' }, message);
    const y = t.toolUse('Grep', { pattern: 'TODO' }, message);
    t.toolResult(y, { content: 'grep text', toolUseResult: { mode: 'content', numLines: 3 } });
    t.toolResult(x, { content: 'read text', toolUseResult: { type: 'text', file: { filePath: 'x.ts', content: 'X' } } });
    const failed = t.toolUse('Bash', { command: 'npm test' });
    t.toolResult(failed, { content: 'Exit code 1\nFAIL', isError: true });
    t.writeTo(fileOf(t));
    await newMiner().mineFile(target(t));
    const byId = new Map(queued(t.sessionId).map((q) => [q.toolUseId, q.payload]));
    expect(byId.get(x)).toMatchObject({ tool_name: 'Read', tool_input: { file_path: 'x.ts' }, tool_response: { file: { content: 'X' } } });
    expect(byId.get(y)).toMatchObject({ tool_name: 'Grep', tool_input: { pattern: 'TODO' }, tool_response: { mode: 'content' } });
    // A failed call is stored as the failure a PostToolUseFailure hook would have delivered.
    expect(byId.get(failed)).toMatchObject({ kind: 'post_tool_use_failure', tool_name: 'Bash', error: 'Exit code 1\nFAIL' });
    expect(observed(t.sessionId)).toEqual([y, x, failed]);
  });

  it('joins an assistant response split over several lines by message.id', async () => {
    const t = new TranscriptBuilder();
    t.prompt('what changed?');
    t.text('An earlier answer.');
    const message = t.newMessageId();
    t.thinking('Let me check.', message);
    t.text('First part.', message);
    t.text('Second part.', message);
    const textLine = t.lines.length - 1;
    t.repeatLine(textLine); // a duplicated line must not double the text
    const diff = t.toolUse('Bash', { command: 'git diff' }, message);
    t.toolResult(diff, { toolUseResult: { stdout: '+1 -1' } });
    t.writeTo(fileOf(t));
    await newMiner().mineFile(target(t));
    const summary = queued(t.sessionId).find((q) => q.kind === 'summary');
    expect(summary?.payload).toMatchObject({ last_assistant_message: 'First part.\nSecond part.', source: 'transcript' });
  });

  it('mines a 20 MB line and skips, counts and survives a line over the cap', async () => {
    const t = new TranscriptBuilder();
    t.prompt('read the dump');
    const content = 'x'.repeat(20 * 1024 * 1024);
    const big = t.call('Read', { file_path: 'dump.txt' }, { type: 'text', file: { filePath: 'dump.txt', content } });
    const small = t.call('Bash', { command: 'wc -c dump.txt' });
    t.writeTo(fileOf(t));
    expect(fs.statSync(fileOf(t)).size).toBeGreaterThan(20 * 1024 * 1024);
    const report = await newMiner().mineFile(target(t));
    expect(report).toMatchObject({ outcome: 'mined', eventsQueued: 2 });
    expect(report.counts.oversizedLines).toBe(0);
    // Stored within the hooks' 1 MiB body limit: head and tail kept, as the observer reads them.
    expect(report.counts.payloadsShortened).toBe(1);
    const payload = queued(t.sessionId).find((q) => q.toolUseId === big)!.payload;
    const stored = payload.tool_response.file.content as string;
    expect(stored.length).toBeLessThan(1024 * 1024);
    expect(stored).toMatch(/^x{1000,}\n…\[elided \d+ characters\]…\nx{1000,}$/);
    expect(payload.tool_input).toEqual({ file_path: 'dump.txt' });
    // The call after the 20 MB line is read whole: the reader resumed at the right byte.
    expect(observed(t.sessionId)).toEqual([big, small]);
    expect(queued(t.sessionId).find((q) => q.toolUseId === small)!.payload).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'wc -c dump.txt' } });

    const u = new TranscriptBuilder();
    u.prompt('again');
    u.call('Read', { file_path: 'dump.txt' }, { type: 'text', file: { filePath: 'dump.txt', content: 'y'.repeat(300_000) } });
    const after = u.call('Bash', { command: 'ls' });
    u.writeTo(fileOf(u));
    const capped = await newMiner({ maxLineBytes: 100_000 }).mineFile(target(u));
    expect(capped).toMatchObject({ outcome: 'mined', eventsQueued: 1 });
    expect(capped.counts.oversizedLines).toBe(1);
    expect(observed(u.sessionId)).toEqual([after]);
  });

  it('migrates a legacy whole-file key once: existing segments are marked, later ones mined', async () => {
    const t = new TranscriptBuilder();
    t.prompt('old session');
    t.call('Read', { file_path: 'a' });
    t.compact();
    t.call('Read', { file_path: 'b' });
    const written = t.writeTo(fileOf(t));
    const mined = createMinedTranscripts(store.db);
    mined.insertLegacyKey(legacyKey(t.sessionId), t.sessionId, T0 - 86_400_000);
    const miner = newMiner();

    const report = await miner.mineFile(target(t));
    expect(report).toMatchObject({ outcome: 'migrated', segments: 2, eventsQueued: 0 });
    expect(keys(t.sessionId)).toEqual([segmentKey(t.sessionId, 0), segmentKey(t.sessionId, 1)]);
    expect(queued(t.sessionId)).toEqual([]);

    t.compact();
    const late = t.call('Bash', { command: 'make' });
    t.appendTo(fileOf(t), written);
    const grown = await miner.mineFile(target(t));
    expect(grown).toMatchObject({ outcome: 'mined', segments: 3, segmentsMined: 1, eventsQueued: 1 });
    expect(observed(t.sessionId)).toEqual([late]);
    expect(keys(t.sessionId)).toEqual([0, 1, 2].map((n) => segmentKey(t.sessionId, n)));
  });

  it('does not observe again what the hooks delivered, and observes what they missed', async () => {
    const t = new TranscriptBuilder();
    t.prompt('go');
    const delivered = t.call('Read', { file_path: 'a.ts' });
    const missed = t.call('Bash', { command: 'npm run build' });
    t.writeTo(fileOf(t));
    // The PostToolUse hook delivered the first call (as the HTTP route enqueues it).
    store.queue.enqueue({ sessionId: t.sessionId, kind: 'observation', toolUseId: delivered, payload: queuedToolUse(t.sessionId), nowMs: T0 });
    const report = await newMiner().mineFile(target(t));
    expect(report).toMatchObject({ eventsQueued: 1, eventsDuplicate: 1 });
    expect(observed(t.sessionId)).toEqual([delivered, missed]);
  });

  it('queues the session summary once every segment is mined, and again only when mining recovers more', async () => {
    const t = new TranscriptBuilder();
    t.prompt('go');
    t.call('Read', { file_path: 'a' });
    t.text('Read it.');
    let written = t.writeTo(fileOf(t));
    const miner = newMiner();
    expect((await miner.mineFile(target(t))).summaryQueued).toBe(true);
    const summaries = () => queued(t.sessionId).filter((q) => q.kind === 'summary').length;
    expect(summaries()).toBe(1);

    // A new segment whose events the hooks delivered: nothing recovered, no second summary.
    t.compact();
    const hooked = t.call('Bash', { command: 'ls' });
    store.queue.enqueue({ sessionId: t.sessionId, kind: 'observation', toolUseId: hooked, payload: queuedToolUse(t.sessionId), nowMs: T0 });
    written = t.appendTo(fileOf(t), written);
    expect(await miner.mineFile(target(t))).toMatchObject({ segmentsMined: 1, eventsQueued: 0, summaryQueued: false });

    // A new segment with a call the hooks missed: summarized again.
    t.compact();
    t.call('Edit', { file_path: 'b' });
    t.appendTo(fileOf(t), written);
    expect(await miner.mineFile(target(t))).toMatchObject({ segmentsMined: 1, eventsQueued: 1, summaryQueued: true });
    expect(summaries()).toBe(2);
  });

  it('backs off 5, 10, 20, 30, 30 minutes while the provider fails, and resets after a success', async () => {
    const MIN = 60_000;
    const t = new TranscriptBuilder();
    t.prompt('go');
    t.call('Read', { file_path: 'a' });
    let written = t.writeTo(fileOf(t));
    // The session's observer call failed at the provider: the loop released it for a retry.
    const { id } = store.queue.enqueue({ sessionId: t.sessionId, kind: 'observation', toolUseId: 'hooked', payload: queuedToolUse(t.sessionId), nowMs: T0 });
    store.queue.claimNext(t.sessionId, T0);
    store.queue.release(id, T0 + 5_000);
    const backoff = createBackoffMap();
    const miner = newMiner({ backoff });

    const attempts: number[] = [];
    let skipped = 0;
    // Tick every minute for two hours, as the watcher does.
    for (let minute = 0; minute <= 120; minute += 1) {
      now = T0 + minute * MIN;
      const r = await miner.mineFile(target(t));
      if (r.outcome === 'failed') {
        attempts.push(minute);
        expect(r.error).toMatch(/^provider_failing/);
        expect(r.eventsQueued).toBe(0);
      } else {
        expect(r.outcome).toBe('backoff');
        skipped += 1;
      }
    }
    expect(attempts).toEqual([0, 5, 15, 35, 65, 95]);
    expect(attempts.slice(1).map((m, i) => m - attempts[i]!)).toEqual([5, 10, 20, 30, 30]);
    expect(skipped).toBe(121 - attempts.length);
    expect(opened).toBe(0);
    expect(observed(t.sessionId)).toEqual(['hooked']);

    // The provider recovers (the message is observed), the window ends, mining succeeds and resets.
    store.queue.claimNext(t.sessionId, now);
    store.queue.confirm(id);
    now = T0 + 125 * MIN;
    expect((await miner.mineFile(target(t))).outcome).toBe('mined');
    expect(backoff.entry(fileOf(t))).toBeUndefined();

    // A new failure starts again at 5 minutes.
    for (let m = store.queue.claimNext(t.sessionId, now); m; m = store.queue.claimNext(t.sessionId, now)) store.queue.confirm(m.id);
    t.call('Bash', { command: 'ls' });
    written = t.appendTo(fileOf(t), written);
    const again = store.queue.enqueue({ sessionId: t.sessionId, kind: 'observation', toolUseId: 'hooked-2', payload: queuedToolUse(t.sessionId), nowMs: now });
    store.queue.claimNext(t.sessionId, now);
    store.queue.release(again.id, now + 5_000);
    now += MIN;
    const failed = await miner.mineFile(target(t));
    expect(failed.outcome).toBe('failed');
    expect(failed.retryAtMs! - now).toBe(5 * MIN);
  });

  it('counts a read that fails mid-way as a failed attempt, keeps what was committed, and retries after the window', async () => {
    const t = new TranscriptBuilder();
    t.prompt('go');
    t.call('Read', { file_path: 'a' });
    t.compact();
    t.call('Read', { file_path: 'b' });
    t.writeTo(fileOf(t));
    let reads = 0;
    const failing = createMiner(
      { chunkBytes: 1024 },
      {
        store: createStoreMiningStore(store, { projectOf }),
        now: () => now,
        wake: () => undefined,
        openFile: async (file) => {
          const handle = await fs.promises.open(file, 'r');
          return {
            read: async (buffer, length, position) => {
              reads += 1;
              if (reads === 3) throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
              return (await handle.read(buffer, 0, length, position)).bytesRead;
            },
            close: () => handle.close(),
          };
        },
      },
    );
    const r = await failing.mineFile(target(t));
    expect(r.outcome).toBe('failed');
    expect(r.error).toMatch(/^read: read failed at byte/);
    expect(r.segmentsFailed).toBeGreaterThanOrEqual(1);
    expect(r.retryAtMs).toBe(now + 5 * 60_000);
    now += 5 * 60_000;
    const retried = await failing.mineFile(target(t));
    expect(retried).toMatchObject({ outcome: 'mined', segments: 2 });
    expect(observed(t.sessionId)).toHaveLength(2);
  });
});
