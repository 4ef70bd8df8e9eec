import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { containsMarker, startCompaction } from '../../src/compaction/index.js';
import { estimateTokens } from '../../src/context/index.js';
import { silentLogger } from '../../src/log.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { captureIO } from '../support/cli-io.js';
import { fakeClock, longerThanPrompt, promptOf, recordingTimers, seedObservations, SMALL_CONFIG } from '../support/compaction-fixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { makeTempDir } from '../support/temp-dir.js';

describe("memtrace repair on memtrace's own store", () => {
  let temp: ReturnType<typeof makeTempDir>;
  let llm: FakeLlm;
  let store: Store;
  let env: Record<string, string>;
  let counter = 0;

  beforeEach(async () => {
    temp = makeTempDir();
    counter = 0;
    llm = await startFakeLlm('anthropic', {
      kind: 'dynamic',
      respond: () => ({ kind: 'text', text: `Compacted history part ${++counter}: retry path findings.` }),
    });
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    env = { MEMTRACE_DATA_DIR: temp.dir, MEMTRACE_TELEMETRY: '0', ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.url };
    // A real DAG built by the compactor, then legacy fallback rows at two depths imported over it.
    seedObservations(store, 'app', 60);
    const compaction = startCompaction(SMALL_CONFIG, {
      db: store.db,
      provider: createAnthropicProvider({ apiKey: 'k', baseUrl: llm.url }),
      clock: fakeClock(),
      timers: recordingTimers(),
      log: silentLogger,
    });
    await compaction.runPass();
    await compaction.stop();
  });
  afterEach(async () => {
    store.close();
    await llm.close();
    temp.cleanup();
  });

  const run = async (...args: string[]) => {
    const c = captureIO({ env });
    const code = await main(args, c.io);
    return { code, stdout: c.stdout(), stderr: c.stderr() };
  };
  const row = (id: number) => store.db.prepare('SELECT * FROM memory_summaries WHERE id = ?').get(id) as Record<string, any>;

  function importFallbacks() {
    const condensed = store.db.prepare("SELECT id FROM memory_summaries WHERE kind = 'condensed' ORDER BY id LIMIT 1").get() as { id: number };
    const leaf = (
      store.db.prepare('SELECT source_summary_id AS id FROM summary_sources WHERE summary_id = ? ORDER BY ordinal LIMIT 1').get(condensed.id) as { id: number }
    ).id;
    const quoted = (store.db.prepare("SELECT id FROM memory_summaries WHERE kind = 'leaf' AND id <> ? ORDER BY id LIMIT 1").get(leaf) as { id: number }).id;
    const fallback = (id: number, text: string) =>
      store.db
        .prepare("UPDATE memory_summaries SET level = 'fallback', content = ?, token_count = ?, model = 'unknown' WHERE id = ?")
        .run(text, estimateTokens(text), id);
    fallback(leaf, `[discovery] Finding 0 about the retry path — why the worker retried\nThe retry path 0 re-reads the queue row\n[Truncated from 700 tokens]`);
    fallback(condensed.id, `## Part 1\n[discovery] Finding 0 about the retry path\n[Truncated from 90 tokens]`);
    const text = 'Notes on lossless-claw: its fallbacks end with [Truncated from N tokens], which this project detects by position, not by substring.';
    store.db.prepare('UPDATE memory_summaries SET content = ?, token_count = ? WHERE id = ?').run(text, estimateTokens(text), quoted);
    return { leaf, condensed: condensed.id, quoted };
  }

  it('scans, repairs bottom-up after a backup, recomputes the parent from its repaired child, and scans clean after', async () => {
    const ids = importFallbacks();
    const scan = await run('repair', 'scan', '--json', '--project', 'app');
    expect(scan.code).toBe(0);
    expect(JSON.parse(scan.stdout).summaries.map((s: any) => [Number(s.id), s.kind, s.depth, s.reasons])).toEqual([
      [ids.leaf, 'leaf', 0, ['level_fallback', 'truncated_tail']],
      [ids.condensed, 'condensed', 1, ['level_fallback', 'truncated_tail']],
    ]);

    const calls = llm.requests.length;
    const apply = await run('repair', 'apply', '--json');
    expect(apply.code).toBe(0);
    const report = JSON.parse(apply.stdout);
    expect(report).toMatchObject({ found: 2, repaired: 2, failed: 0, skipped: 0 });
    expect(fs.existsSync(report.backup)).toBe(true);
    expect(fs.statSync(report.backup).mode & 0o777).toBe(0o600);
    expect(apply.stderr).toContain('[2/2]');

    const leaf = row(ids.leaf);
    const parent = row(ids.condensed);
    expect([leaf.level, parent.level]).toEqual(['normal', 'normal']);
    expect(leaf.token_count).toBe(estimateTokens(leaf.content));
    const [leafPrompt, parentPrompt] = llm.requests.slice(calls).map((r) => promptOf(r.body));
    expect(leafPrompt).toContain('Finding 0 about the retry path'); // from its source observations
    expect(parentPrompt).toContain(leaf.content); // from the repaired child
    expect(containsMarker(parentPrompt!)).toBe(false); // markers stripped; the quoted "[Truncated from N tokens]" is no marker
    expect(parent.source_token_count).toBeGreaterThan(parent.token_count);
    expect(row(ids.quoted).level).toBe('normal');

    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(store.db.pragma('foreign_key_check')).toEqual([]);
    const rescan = await run('repair', 'scan', '--json');
    expect(JSON.parse(rescan.stdout).found).toBe(0);
  });

  it('reports a rewrite that does not shrink as failed, writes nothing for it, and exits 1', async () => {
    const ids = importFallbacks();
    llm.push(
      { kind: 'dynamic', respond: (body) => ({ kind: 'text', text: longerThanPrompt(body) }) },
      { kind: 'dynamic', respond: (body) => ({ kind: 'text', text: longerThanPrompt(body) }) },
    );
    const before = row(ids.leaf);
    const apply = await run('repair', 'apply', '--max', '5');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toContain('found 2, repaired 0, failed 1, skipped 1');
    expect(apply.stdout).toContain('did not shrink');
    expect(row(ids.leaf)).toEqual(before);
  });

  it('leaves a store without fallbacks alone: no backup, exit 0', async () => {
    const apply = await run('repair', 'apply');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('found 0');
    expect(fs.readdirSync(temp.dir).filter((f) => f.endsWith('.bak'))).toEqual([]);
  });
});
