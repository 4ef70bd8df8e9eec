/**
 * A year of memory at full speed (issue 36): `npm run bench -- memory-scale`.
 *
 * Per size, a store made from the memory bench's real-history corpus repeated with distinct ids
 * and sessions (bench/memory-scale-store.ts: words keep their real frequencies), and:
 * - the upgrade to this version's search schema (step 1200), timed on a copy;
 * - search in process over every question of the memory bench (English and CJK): wall p50/p95/max,
 *   CPU per query, which path ranked it, recall@5 and MRR@10 on the held-out (test) questions and
 *   on all of them; the same for the engine before issue 36 (FTS5's bm25 over the whole query and
 *   the whole index), the baseline of the same run;
 * - search through MCP (`memtrace mcp`, the stdio server, one process, a call's round trip);
 * - bytes per observation and per tool event;
 * - every other path with a hook's latency while it runs (bench/memory-scale-paths.ts).
 * And once: the memory bench's quality figures at its own size (bench/memory-quality.ts,
 * bench/memory-cjk.ts), which must not drop.
 *
 * Knobs (env):
 *   MEMORY_SCALE_SIZES      observations per store, comma-separated (default 1632,101184,1000416:
 *                           the issue's 1.6k, 100k and 1M; the 1M store takes about 15 minutes to
 *                           build once on a shared 2-core machine, then comes from the cache)
 *   MEMORY_SCALE_CACHE      where built stores are kept ($TMPDIR/memtrace-memory-scale-cache)
 *   MEMORY_SCALE_CORPUS_AT  the commit whose history and files make the corpus (see memory-scale-store.ts)
 *   MEMORY_SCALE_BEFORE     0: skip the engine before issue 36 (a few minutes at 1M)
 *   MEMORY_SCALE_PATHS      0: search only
 *   MEMORY_SCALE_SEARCH     0: no search in process (the other paths only)
 *   MEMORY_SCALE_MCP        0: no MCP figures
 *   MEMORY_SCALE_IMPORT     0: every path but import (the slowest at 1M)
 *   MEMORY_SCALE_IMPORT_LINES  import only the export's first N lines (all by default; a million
 *                           lines take over half an hour beside a worker on a shared 2-core machine)
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createMemorySearch } from '../src/memory/index.js';
import { buildSearchQuery } from '../src/memory/query.js';
import { createSearchCandidates } from '../src/memory/search-candidates.js';
import { DEFAULT_HYBRID } from '../src/memory/search-hybrid.js';
import { MIGRATIONS, openStore } from '../src/store/index.js';
import { dropRecentIndex } from '../src/store/migrations/recent-index-build.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { evaluateCjkQuality, loadCjkSet } from './memory-cjk.js';
import { loadQuestions } from './memory-corpus.js';
import { evaluateQuality, score } from './memory-quality.js';
import { pathFigures, storeSize } from './memory-scale-paths.js';
import { cachedScaleStore, copyStore, PROJECTS, scaleCorpus, type ScaleCorpus } from './memory-scale-store.js';
import { summarize } from './stats.js';

export const name = 'memory-scale';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin', 'memtrace.cjs');
const SIZES = (process.env.MEMORY_SCALE_SIZES ?? '1632,101184,1000416').split(',').map(Number);
const on = (knob: string) => process.env[knob] !== '0';
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Question {
  q: string;
  target: string;
  split: 'tune' | 'test';
  set: 'en' | 'cjk';
}

function questions(): Question[] {
  return [
    ...loadQuestions().map((q) => ({ ...q, set: 'en' as const })),
    ...loadCjkSet().questions.map((q) => ({ q: q.q, target: q.target, split: q.split, set: 'cjk' as const })),
  ];
}

/** recall@5 and MRR@10 by the corpus item a result is a copy of, on the held-out questions and on all. */
function quality(qs: readonly Question[], ranks: ReadonlyArray<number | null>) {
  const of = (keep: (q: Question) => boolean) => score(ranks.filter((_, i) => keep(qs[i]!)));
  return {
    en_test: of((q) => q.set === 'en' && q.split === 'test'),
    cjk_test: of((q) => q.set === 'cjk' && q.split === 'test'),
    en_all: of((q) => q.set === 'en'),
    cjk_all: of((q) => q.set === 'cjk'),
  };
}

function rankOf(rowids: readonly number[], target: string, corpus: ScaleCorpus): number | null {
  const at = rowids.findIndex((r) => r > 0 && corpus.keyOf(r) === target);
  return at < 0 ? null : at + 1;
}

/** Times `rank` over every question (after a warm-up), and scores what it ranked. */
function measure(qs: readonly Question[], corpus: ScaleCorpus, rank: (q: string) => number[], after?: () => string | undefined) {
  for (const q of qs.slice(0, 5)) rank(q.q);
  const wall: number[] = [];
  const cpu: number[] = [];
  const ranks: Array<number | null> = [];
  const results: number[][] = [];
  const paths: Record<string, number> = {};
  for (const q of qs) {
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    const rowids = rank(q.q);
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuStarted);
    cpu.push((used.user + used.system) / 1000);
    ranks.push(rankOf(rowids, q.target, corpus));
    results.push(rowids);
    const path_ = after?.();
    if (path_) paths[path_] = (paths[path_] ?? 0) + 1;
  }
  return { wall: summarize(wall), cpu: summarize(cpu), ...(after ? { paths } : {}), quality: quality(qs, ranks), results };
}

/**
 * How often the engine's results name the same corpus items as FTS5 ranking the whole index (the
 * engine before issue 36): its best result, and the items of its ten. Copies of one item are one.
 */
function agreement(corpus: ScaleCorpus, engine: readonly number[][], full: readonly number[][]) {
  const keyOf = (r: number) => (r > 0 ? (corpus.keyOf(r) ?? `o${r}`) : `s${r}`);
  let best = 0;
  let items = 0;
  engine.forEach((rowids, i) => {
    const mine = rowids.map(keyOf);
    const theirs = full[i]!.map(keyOf);
    if (mine[0] === theirs[0]) best += 1;
    const wanted = new Set(theirs);
    items += wanted.size === 0 ? 1 : [...new Set(mine)].filter((k) => wanted.has(k)).length / wanted.size;
  });
  return { same_best_result: +(best / engine.length).toFixed(3), same_items_in_ten: +(items / engine.length).toFixed(3) };
}

async function mcpSearch(dataDir: string, qs: readonly Question[]) {
  const env = { PATH: process.env.PATH ?? '', HOME: dataDir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' };
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'ignore' }));
  try {
    for (const q of qs.slice(0, 5)) await client.callTool({ name: 'search', arguments: { query: q.q } });
    const times: number[] = [];
    for (const q of qs) {
      const started = performance.now();
      await client.callTool({ name: 'search', arguments: { query: q.q } });
      times.push(performance.now() - started);
    }
    return summarize(times);
  } finally {
    await client.close();
  }
}

/** The copy as a store before steps 1200, 1201 and 1400 (no recent index), then upgraded: the steps a user's store takes. */
function upgradeFigure(file: string): Record<string, unknown> {
  const store = openStore(file);
  dropRecentIndex(store.db);
  store.db.exec('DROP INDEX summaries_recent; DROP INDEX sessions_recent;');
  store.db.prepare("DELETE FROM schema_migrations WHERE id IN ('1200_search_recent', '1201_recent_orders', '1400_recent_window')").run();
  store.db.pragma(`user_version = ${MIGRATIONS.findIndex((m) => m.id === '1200_search_recent')}`);
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  store.close();
  const started = performance.now();
  openStore(file).close();
  return { steps: ['1200_search_recent', '1201_recent_orders', '1400_recent_window'], open_and_upgrade_ms: Math.round(performance.now() - started) };
}

const WIDE_POOLS = { ...DEFAULT_HYBRID, cap: 2_000, maxPool: 128, recent: 32 };

async function atSize(corpus: ScaleCorpus, qs: readonly Question[], size: number): Promise<Record<string, unknown>> {
  const cached = cachedScaleStore(corpus, size, log);
  const temp = makeTempDir(`memtrace-bench-scale-${size}-`);
  try {
    const dataDir = path.join(temp.dir, 'data');
    const file = copyStore(cached.file, dataDir);
    const out: Record<string, unknown> = { observations: size, build_s: cached.buildS ?? 'cached', upgrade: upgradeFigure(file) };
    out.size = storeSize(file);
    if (on('MEMORY_SCALE_SEARCH')) {
      const store = openStore(file);
      try {
        log(`memory-scale: ${size} search…`);
        const search = createMemorySearch(store.db);
        const rank = (q: string) => search.search(q).map((h) => (h.kind === 'observation' ? h.id : -h.id));
        const { results: engineResults, ...engine } = measure(qs, corpus, rank, () => search.lastTrace()?.path);
        out.search = engine;
        if (on('MEMORY_SCALE_BEFORE')) {
          const candidates = createSearchCandidates(store.db);
          const before = (q: string) => {
            const query = buildSearchQuery(q);
            return query.ok ? candidates.rank(query.match, { project: null, type: null, sinceMs: null }, 10).map((r) => r.rowid) : [];
          };
          const { results: fullResults, ...full } = measure(qs, corpus, before);
          out.search_before_issue_36 = full;
          out.agreement_with_full_ranking = agreement(corpus, engineResults, fullResults);
          // The pools this engine had before they were tuned (docs/memory.md#search-at-scale), for the comparison.
          const wide = createMemorySearch(store.db, WIDE_POOLS);
          const { results: wideResults, ...wideFigures } = measure(qs, corpus, (q) => wide.search(q).map((h) => (h.kind === 'observation' ? h.id : -h.id)));
          out.search_wide_pools = { config: WIDE_POOLS, ...wideFigures, agreement_with_full_ranking: agreement(corpus, wideResults, fullResults) };
        }
      } finally {
        store.close();
      }
    }
    if (on('MEMORY_SCALE_MCP')) out.mcp_search_call = await mcpSearch(dataDir, qs);
    if (on('MEMORY_SCALE_PATHS')) {
      log(`memory-scale: ${size} paths…`);
      out.paths = await pathFigures({
        dataDir,
        scratch: temp.dir,
        projects: Array.from({ length: PROJECTS }, (_, i) => `/work/project-${i}`),
        forgetMatch: 'release packaging',
        sampleSession: 'scale-0-0',
        sampleObservation: 1,
      });
    }
    return out;
  } finally {
    temp.cleanup();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const corpus = scaleCorpus();
  const qs = questions();
  const results: Record<string, unknown> = {
    loadavg: fs.readFileSync('/proc/loadavg', 'utf8').trim(),
    corpus: { items: corpus.items.length, fingerprint: corpus.fingerprint },
    questions: qs.length,
    quality_at_memory_bench_size: { english: evaluateQuality().splits, cjk: evaluateCjkQuality().memtrace },
  };
  for (const size of SIZES) {
    results[`at_${size}`] = await atSize(corpus, qs, size);
    results[`loadavg_after_${size}`] = fs.readFileSync('/proc/loadavg', 'utf8').trim();
  }
  return results;
}
