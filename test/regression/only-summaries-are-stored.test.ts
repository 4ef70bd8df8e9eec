import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startCompaction } from '../../src/compaction/index.js';
import { silentLogger } from '../../src/log.js';
import { createAnthropicProvider, createReplayProvider } from '../../src/providers/index.js';
import { openStore } from '../../src/store/index.js';
import { captureIO } from '../support/cli-io.js';
import { fakeClock, promptOf, recordingTimers, seedObservations, SMALL_CONFIG } from '../support/compaction-fixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { seedLcmFixture } from '../support/lcm-fixture.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness } from '../support/worker-harness.js';

/**
 * Bug (issue 17, item 5): with the replay provider, `memtrace repair apply --lcm FILE` wrote canned
 * observer XML (`<observation>…`) into a lossless-claw database's summaries — two leaves
 * overwritten before it stopped at their parent — because any shorter text passed as a summary.
 * Compaction took the same shortcut. Both now store by one contract (src/compaction/summary-contract.ts).
 */
describe('memtrace repair apply writes only summaries', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let file: string;
  let llm: FakeLlm | undefined;
  beforeEach(() => {
    temp = makeTempDir();
    file = path.join(temp.dir, 'lcm.db');
    seedLcmFixture(file);
  });
  afterEach(async () => {
    await llm?.close();
    llm = undefined;
    temp.cleanup();
  });

  const run = async (env: Record<string, string>, ...args: string[]) => {
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: path.join(temp.dir, 'memtrace'), MEMTRACE_TELEMETRY: '0', ...env }, cwd: temp.dir });
    const code = await main(args, c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  };
  const fingerprint = () => ({
    sha: createHash('sha256').update(fs.readFileSync(file)).digest('hex'),
    files: fs.readdirSync(temp.dir).sort(),
  });
  const summaries = () => {
    const db = new Database(file, { readonly: true });
    try {
      return new Map(
        (db.prepare('SELECT summary_id, content FROM summaries').all() as Array<{ summary_id: string; content: string }>).map((r) => [r.summary_id, r.content]),
      );
    } finally {
      db.close();
    }
  };

  it.each([
    ['replay with observer recordings', { MEMTRACE_PROVIDER: 'replay' }, /the replay provider cannot summarize: none of the 2 replies/],
    ['no provider', {}, /no provider is configured/],
  ])('refuses %s up front, in one line, and leaves the file byte-identical', async (_name, providerEnv, message) => {
    const replayFile = path.join(temp.dir, 'observer-replies.jsonl');
    fs.writeFileSync(
      replayFile,
      [observationXml({ type: 'bugfix', title: 'Canned' }), summaryXml({ request: 'r', completed: 'c' })].map((text) => JSON.stringify({ text })).join('\n'),
    );
    const before = fingerprint();
    const result = await run({ ...providerEnv, MEMTRACE_REPLAY_FILE: replayFile }, 'repair', 'apply', '--lcm', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(fingerprint()).toEqual(before);
  });

  it('refuses replay with observer recordings on memtrace’s own store too, before opening it', async () => {
    const dataDir = path.join(temp.dir, 'memtrace');
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    seedObservations(store, 'app', 3);
    store.close();
    const replayFile = path.join(temp.dir, 'observer-replies.jsonl');
    fs.writeFileSync(replayFile, JSON.stringify({ text: observationXml({ type: 'bugfix', title: 'Canned' }) }));
    const snapshot = () => ({
      db: createHash('sha256')
        .update(fs.readFileSync(path.join(dataDir, 'memtrace.db')))
        .digest('hex'),
      files: fs.readdirSync(dataDir).sort(),
    });
    const before = snapshot();
    const result = await run({ MEMTRACE_PROVIDER: 'replay', MEMTRACE_REPLAY_FILE: replayFile }, 'repair', 'apply');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^memtrace repair: the replay provider cannot summarize: .*; nothing was changed\.\n$/);
    expect(snapshot()).toEqual(before);
  });

  it.each([
    ['observer XML', 'observer_markup', (_body: unknown) => observationXml({ type: 'discovery', title: 'Not a summary', narrative: 'topic-m3 retried' })],
    ['an observer summary block', 'observer_markup', (_body: unknown) => summaryXml({ request: 'topic-m3', completed: 'retried' })],
    [
      'the prompt given back',
      'prompt_echo',
      (body: unknown) =>
        `Summarize these ${promptOf(body).includes('earlier summaries') ? 'earlier summaries' : 'observations'} (about 9 tokens).\n<input>topic-m3</input>`,
    ],
    ['a verbatim excerpt of its input', 'prompt_echo', (body: unknown) => promptOf(body).split('<input>\n')[1]!.slice(0, 160)],
  ])('writes nothing when the provider answers %s, and says why', async (_name, reason, answer) => {
    llm = await startFakeLlm('anthropic', { kind: 'dynamic', respond: (body) => ({ kind: 'text', text: answer(body) }) });
    const before = summaries();
    const result = await run({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.url }, 'repair', 'apply', '--lcm', file, '--json');
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ found: 3, repaired: 0 });
    expect(report.entries.filter((e: any) => e.outcome.status === 'failed').map((e: any) => e.outcome.reason)).toEqual([reason, reason]);
    expect(llm.requests.length).toBeGreaterThan(0);
    expect(summaries()).toEqual(before);
  });
});

describe('compaction stores only summaries', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let llm: FakeLlm | undefined;
  beforeEach(() => {
    temp = makeTempDir();
  });
  afterEach(async () => {
    await llm?.close();
    llm = undefined;
    temp.cleanup();
  });

  it('writes nothing when the summarizer answers observer XML, and says why', async () => {
    llm = await startFakeLlm('anthropic', { kind: 'text', text: observationXml({ type: 'discovery', title: 'Not a summary' }) });
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    const compaction = startCompaction(SMALL_CONFIG, {
      db: store.db,
      provider: createAnthropicProvider({ apiKey: 'k', baseUrl: llm.url }),
      clock: fakeClock(),
      timers: recordingTimers(),
      log: silentLogger,
    });
    try {
      seedObservations(store, 'app', 30);
      const pass = await compaction.runPass();
      expect(pass.steps).toEqual([expect.objectContaining({ kind: 'skipped', reason: 'observer_markup' })]);
      expect(store.db.prepare('SELECT count(*) AS n FROM memory_summaries').get()).toEqual({ n: 0 });
    } finally {
      await compaction.stop();
      store.close();
    }
  });

  it('is off in a worker whose replay file holds observer recordings: one info line, no warning, no call', async () => {
    const replies = [observationXml({ type: 'bugfix', title: 'Canned' })].map((text) => JSON.stringify({ text }));
    const h = await startHarness(createReplayProvider({ lines: replies }), { env: { MEMTRACE_TELEMETRY: '0', MEMTRACE_COMPACTION_BUDGET_TOKENS: '1000' } });
    try {
      expect(h.log.records.filter((r) => r.message.startsWith('compaction is off: the replay provider cannot summarize'))).toHaveLength(1);
      expect(h.log.records.filter((r) => r.level === 'warn' || r.level === 'error')).toEqual([]);
    } finally {
      await h.stop();
    }
  });
});
