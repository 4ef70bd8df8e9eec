/**
 * The memory surface, measured (issue 19):
 * - search quality: recall@5 and MRR@10 of memtrace's search and of a plain BM25 baseline
 *   (MiniSearch) on the same retrieval set, per split (tune; test, held out from tuning);
 * - the same on the CJK set (Japanese, Chinese, Korean, Thai; bench/memory-cjk.ts), and the ways
 *   of cutting those scripts into index units compared on it (issue 29);
 * - search latency p50/p95 with 10k and 100k observations, through the CLI (a whole process per
 *   search, next to a bare `memtrace --version` process, the floor) and through one MCP process
 *   (a tool call's round trip, next to the same query in process);
 * - export and import throughput (MB/s) of the 100k store, next to merely reading the file's lines;
 * - forget on the 100k store: bytes of the forgotten text left in the .db and -wal files;
 * - `memtrace import --from claude-mem` of a peer database of 100k observations (the real command
 *   in its own process): rows a second, next to merely reading the same rows from the peer file;
 * - what the MCP server costs a short `claude -p` session (the real Claude Code, offline): Claude
 *   Code waits for its MCP servers to connect (up to about 2 s) before its first request.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openPrivateFile } from '../src/data-dir/index.js';
import { createMemorySearch, importJsonl, streamSink, writeJsonl, type ExportCounts } from '../src/memory/index.js';
import type { ImportReport } from '../src/memory/import.js';
import { openStore } from '../src/store/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { buildCorpus, loadQuestions } from './memory-corpus.js';
import { evaluateQuality } from './memory-quality.js';
import { compareScriptStrategies, evaluateCjkQuality } from './memory-cjk.js';
import { fillStore } from './memory-synthetic.js';
import { claudeUnavailableReason, runClaudeCode } from '../test/support/claude-code.js';
import { basicScript, BASIC_PROMPT, writeBasicProject } from '../test/support/claude-code-scenario.js';
import { startFakeAnthropic } from '../test/support/fake-anthropic.js';
import { summarize } from './stats.js';
import { createPeerDatabase, fillPeerDatabase } from '../test/support/claude-mem-fixture.js';
import Database from 'better-sqlite3';

export const name = 'memory';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin', 'memtrace.cjs');
const CLI_RUNS = 30;
const MCP_CALLS = 200;
const MARKER = 'xqzjvkwq';

const mb = (bytes: number) => bytes / (1024 * 1024);
const elapsed = (started: number) => performance.now() - started;

function timeProcess(args: string[], env: Record<string, string>): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.status !== 0) throw new Error(`memtrace ${args[0]} exited ${run.status}: ${run.stderr.toString().slice(0, 300)}`);
  return elapsed(started);
}

async function latencyAt(dataDir: string, queries: readonly string[]): Promise<Record<string, unknown>> {
  const env = { PATH: process.env.PATH ?? '', HOME: dataDir, MEMTRACE_DATA_DIR: dataDir };
  const floor = Array.from({ length: CLI_RUNS }, () => timeProcess(['--version'], env));
  const cli = Array.from({ length: CLI_RUNS }, (_, i) => timeProcess(['search', '--json', '--', queries[i % queries.length]!], env));

  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const spawned = performance.now();
  await client.connect(transport);
  const mcpReadyMs = Math.round(elapsed(spawned));
  const mcp: number[] = [];
  try {
    for (let i = 0; i < 20; i += 1) await client.callTool({ name: 'search', arguments: { query: queries[i % queries.length]! } });
    for (let i = 0; i < MCP_CALLS; i += 1) {
      const started = performance.now();
      await client.callTool({ name: 'search', arguments: { query: queries[i % queries.length]! } });
      mcp.push(elapsed(started));
    }
  } finally {
    await client.close();
  }
  const store = openStore(path.join(dataDir, 'memtrace.db'));
  const inProcess: number[] = [];
  try {
    const search = createMemorySearch(store.db);
    for (let i = 0; i < MCP_CALLS; i += 1) {
      const started = performance.now();
      search.search(queries[i % queries.length]!);
      inProcess.push(elapsed(started));
    }
  } finally {
    store.close();
  }
  return {
    cli_search: summarize(cli),
    cli_floor_memtrace_version: summarize(floor),
    mcp_search_call: summarize(mcp),
    mcp_spawn_to_initialized_ms: mcpReadyMs,
    in_process_search: summarize(inProcess),
  };
}

async function exportImport(dataDir: string, temp: string): Promise<Record<string, unknown>> {
  const file = path.join(temp, 'export.jsonl');
  const store = openStore(path.join(dataDir, 'memtrace.db'));
  let exportMs: number;
  let counts: ExportCounts;
  try {
    const stream = fs.createWriteStream('', { fd: openPrivateFile(file, 'w') });
    const started = performance.now();
    counts = await writeJsonl(store.db, {}, streamSink(stream));
    await new Promise<void>((resolve) => stream.end(resolve));
    exportMs = elapsed(started);
  } finally {
    store.close();
  }
  const bytes = fs.statSync(file).size;
  let readStarted = performance.now();
  let lines = 0;
  for await (const line of readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })) lines += line.length > 0 ? 1 : 0;
  const readMs = elapsed(readStarted);
  const target = openStore(path.join(temp, 'imported', 'memtrace.db'));
  let importMs: number;
  let report: ImportReport;
  try {
    readStarted = performance.now();
    report = await importJsonl(target, readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity }), { nowMs: Date.now() });
    importMs = elapsed(readStarted);
  } finally {
    target.close();
  }
  return {
    file_mb: +mb(bytes).toFixed(1),
    lines,
    export_mb_per_s: +(mb(bytes) / (exportMs / 1000)).toFixed(1),
    import_mb_per_s: +(mb(bytes) / (importMs / 1000)).toFixed(1),
    baseline_read_lines_mb_per_s: +(mb(bytes) / (readMs / 1000)).toFixed(1),
    exported: counts.observations + counts.summaries,
    imported: report.imported,
    invalid: report.invalid,
  };
}

function forgetMarker(dataDir: string): Record<string, unknown> {
  const dbFile = path.join(dataDir, 'memtrace.db');
  const store = openStore(dbFile);
  const id = store.observations.insert(
    {
      type: 'security',
      title: `Token ${MARKER} was pasted into the notes`,
      subtitle: '',
      narrative: `The value ${MARKER} sat in notes.md.`,
      facts: [MARKER],
      concepts: [],
      files_read: [],
      files_modified: [],
    },
    {
      sessionId: 'bench-forget',
      project: '/work/project-0',
      sourceMessageIds: [],
      provider: 'replay',
      model: null,
      promptVersion: 'bench',
      discoveryTokens: null,
      createdAt: Date.now(),
    },
  );
  store.db.pragma('wal_checkpoint(PASSIVE)');
  store.close();
  const count = () => {
    let n = 0;
    for (const f of [dbFile, `${dbFile}-wal`]) {
      if (!fs.existsSync(f)) continue;
      const bytes = fs.readFileSync(f);
      for (let at = bytes.indexOf(MARKER); at >= 0; at = bytes.indexOf(MARKER, at + 1)) n += 1;
    }
    return n;
  };
  const before = count();
  const started = performance.now();
  execFileSync(process.execPath, [BIN, 'forget', String(id), '--yes'], {
    env: { PATH: process.env.PATH ?? '', HOME: dataDir, MEMTRACE_DATA_DIR: dataDir },
    stdio: 'ignore',
  });
  return {
    marker_occurrences_before: before,
    marker_bytes_left_after: count(),
    forget_process_ms: Math.round(elapsed(started)),
    db_mb: +mb(fs.statSync(dbFile).size).toFixed(1),
  };
}

/** Median wall time of the scripted `claude -p` session with and without `memtrace mcp` registered for the project (no hooks either way). */
async function mcpSessionCost(dataDir: string, temp: string): Promise<Record<string, unknown>> {
  const unavailable = claudeUnavailableReason();
  if (unavailable) return { skipped: unavailable };
  const walls: Record<'without_mcp' | 'with_mcp', number[]> = { without_mcp: [], with_mcp: [] };
  for (let i = 0; i < 3; i += 1) {
    for (const withMcp of [false, true]) {
      const project = path.join(temp, `session-${i}-${withMcp}`);
      fs.mkdirSync(project);
      if (withMcp)
        fs.writeFileSync(
          path.join(project, '.mcp.json'),
          JSON.stringify({ mcpServers: { memtrace: { type: 'stdio', command: process.execPath, args: [BIN, 'mcp'], env: {} } } }),
        );
      const api = await startFakeAnthropic({ script: basicScript(writeBasicProject(project)) });
      try {
        const run = await runClaudeCode({
          projectDir: project,
          prompt: BASIC_PROMPT,
          apiUrl: api.url,
          home: path.join(temp, `home-${i}-${withMcp}`),
          env: { MEMTRACE_DATA_DIR: dataDir },
        });
        if (run.exitCode !== 0) throw new Error(`claude -p exited ${run.exitCode}`);
        walls[withMcp ? 'with_mcp' : 'without_mcp'].push(Math.round(run.wallMs));
      } finally {
        await api.close();
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { runs_ms: walls, median_without_mcp_ms: median(walls.without_mcp), median_with_mcp_ms: median(walls.with_mcp) };
}

/** Import of a claude-mem database of `observations` observations: the whole `memtrace import` process, and a bare read of the same rows. */
export function claudeMemImport(temp: string, observations: number): Record<string, unknown> {
  const peer = path.join(temp, 'claude-mem', 'claude-mem.db');
  fs.mkdirSync(path.dirname(peer), { recursive: true });
  const seeded = performance.now();
  const db = createPeerDatabase(peer);
  const { sessions } = fillPeerDatabase(db, { observations });
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const seedS = +(elapsed(seeded) / 1000).toFixed(1);
  const dataDir = path.join(temp, 'claude-mem-data');
  const env = { PATH: process.env.PATH ?? '', HOME: temp, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' };
  const readStarted = performance.now();
  const reader = new Database(peer, { readonly: true });
  let rows = 0;
  for (const _ of reader.prepare('SELECT * FROM observations ORDER BY id').iterate()) rows += 1;
  for (const _ of reader.prepare('SELECT * FROM session_summaries ORDER BY id').iterate()) rows += 1;
  reader.close();
  const readMs = elapsed(readStarted);
  const started = performance.now();
  const out = execFileSync(process.execPath, [BIN, 'import', '--from', 'claude-mem', peer, '--json'], { env, encoding: 'utf8' });
  const importMs = elapsed(started);
  const again = performance.now();
  const second = execFileSync(process.execPath, [BIN, 'import', '--from', 'claude-mem', peer, '--json'], { env, encoding: 'utf8' });
  const secondMs = elapsed(again);
  return {
    peer_observations: observations,
    peer_summaries: sessions,
    peer_mb: +mb(fs.statSync(peer).size).toFixed(1),
    seed_s: seedS,
    first_run: JSON.parse(out) as unknown,
    import_process_s: +(importMs / 1000).toFixed(1),
    imported_rows_per_s: Math.round(rows / (importMs / 1000)),
    baseline_read_rows_per_s: Math.round(rows / (readMs / 1000)),
    second_run: JSON.parse(second) as unknown,
    second_run_process_s: +(secondMs / 1000).toFixed(1),
    store_mb: +mb(fs.statSync(path.join(dataDir, 'memtrace.db')).size).toFixed(1),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const quality = evaluateQuality();
  const corpus = buildCorpus();
  const queries = loadQuestions().map((q) => q.q);
  const temp = makeTempDir('memtrace-bench-memory-');
  try {
    const results: Record<string, unknown> = { quality, quality_cjk: evaluateCjkQuality(), script_strategies: compareScriptStrategies() };
    let previous = 0;
    const dataDir = path.join(temp.dir, 'data');
    for (const size of [10_000, 100_000]) {
      const store = openStore(path.join(dataDir, 'memtrace.db'));
      const seeded = performance.now();
      fillStore(store, corpus, size - previous, { seed: size });
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      store.close();
      previous = size;
      results[`latency_${size / 1000}k`] = { observations: size, seed_s: +(elapsed(seeded) / 1000).toFixed(1), ...(await latencyAt(dataDir, queries)) };
    }
    results.export_import_100k = await exportImport(dataDir, temp.dir);
    results.forget_100k = forgetMarker(dataDir);
    results.claude_code_session_100k = await mcpSessionCost(dataDir, temp.dir);
    results.import_claude_mem_100k = claudeMemImport(temp.dir, 100_000);
    return results;
  } finally {
    temp.cleanup();
  }
}
