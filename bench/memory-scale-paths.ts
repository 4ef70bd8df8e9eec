/**
 * Every memory path but search at one size (issue 36), each timed and each run while a real
 * worker on the same data dir takes PostToolUse hooks (bench/hook-probe.ts): SessionStart context
 * (the worker's answer, and the cold-start file the worker rewrites), the viewer's pages, export,
 * import (into an empty data dir with its own worker), forget --match, a retention pass and
 * repair scan. Export and repair scan run as the user runs them (`memtrace …`, their own process).
 * forget and import run in a process of their own too, through the CLI's own calls and pacing
 * (bench/paced-writer-child.ts), which also reports how long each transaction held the write
 * lock. The retention pass is the worker's own (a worker started with a retention window that
 * reaches into the store's history; its first pass runs 10 s after it starts): its duration and
 * longest write come from the worker's /health, and the hook latency is of the hooks posted
 * while it ran. Beside each, the same hook latency with the worker idle, taken in the same run.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { silentLogger } from '../src/log.js';
import { buildContext, createContextQuery, DEFAULT_BUDGET_TOKENS } from '../src/context/index.js';
import { DAY_MS } from '../src/memory/retention.js';
import { openStore } from '../src/store/index.js';
import { createViewerApp, createViewerAuth } from '../src/viewer/index.js';
import { createContextFiles } from '../src/worker/context-files.js';
import { startChildWorker, type ChildWorker } from '../test/support/child-worker.js';
import { hookLatencyDuring, hookSummary, type HookLatency } from './hook-probe.js';
import { summarize } from './stats.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin', 'memtrace.cjs');
const elapsed = (started: number) => Math.round(performance.now() - started);

/** The worker as the bench runs it: no observer, no telemetry, its retention and size budget held off (but for the retention figure's own worker). */
function workerEnv(dataDir: string): Record<string, string> {
  return {
    MEMTRACE_DATA_DIR: dataDir,
    MEMTRACE_PROVIDER: 'none',
    MEMTRACE_TELEMETRY: '0',
    MEMTRACE_RAW_RETENTION_DAYS: '36500',
    MEMTRACE_MAX_DB_MB: '10000000',
  };
}

function startWorker(dataDir: string, env: Record<string, string> = {}): Promise<ChildWorker> {
  return startChildWorker({ ...workerEnv(dataDir), ...env });
}

function memtrace(args: string[], dataDir: string): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: dataDir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' }, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`memtrace ${args.join(' ')}: ${stderr.slice(0, 400) || error.message}`));
        else resolve({ ms: elapsed(started), stdout });
      },
    );
  });
}

type Figure = Record<string, unknown> & { hook_latency?: HookLatency };

async function during(dataDir: string, work: () => Promise<Record<string, unknown>>): Promise<Figure> {
  const { result, latency } = await hookLatencyDuring(dataDir, work);
  return { ...result, hook_latency: latency };
}

/** The store's bytes by what they hold (dbstat), per observation and per tool event. */
export function storeSize(file: string): Record<string, number> {
  const store = openStore(file);
  try {
    const bytes = new Map(
      (store.db.prepare('SELECT name, sum(pgsize) AS b FROM dbstat GROUP BY name').all() as Array<{ name: string; b: number }>).map((r) => [r.name, r.b]),
    );
    const sum = (test: (name: string) => boolean) => [...bytes].filter(([n]) => test(n)).reduce((a, [, b]) => a + b, 0);
    const count = (table: string) => Number(store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
    const observations = count('observations');
    const toolEvents = count('tool_events');
    const memory = sum((n) => n.startsWith('observations') || n.startsWith('memory_fts'));
    const events = sum((n) => n.startsWith('tool_events') || n === 'queue_seen' || n === 'session_files_written');
    return {
      file_mb: +(fs.statSync(file).size / 1024 / 1024).toFixed(1),
      observations,
      tool_events: toolEvents,
      bytes_per_observation: Math.round(memory / Math.max(1, observations)),
      bytes_per_observation_index_only: Math.round(sum((n) => n.startsWith('memory_fts')) / Math.max(1, observations)),
      bytes_per_tool_event: Math.round(events / Math.max(1, toolEvents)),
      bytes_per_observation_everything: Math.round(fs.statSync(file).size / Math.max(1, observations)),
    };
  } finally {
    store.close();
  }
}

/** Context for each project: built in process (what the worker computes), the worker's HTTP answer, and the cold-start files rewritten. */
async function contextFigures(dataDir: string, worker: ChildWorker, projects: readonly string[]): Promise<Figure> {
  const store = openStore(path.join(dataDir, 'memtrace.db'));
  const build: number[] = [];
  let files: number;
  try {
    const query = createContextQuery(store.db);
    for (let round = 0; round < 3; round += 1) {
      for (const project of projects) {
        const started = performance.now();
        buildContext(query, { project, budgetTokens: DEFAULT_BUDGET_TOKENS, nowMs: Date.now() });
        build.push(performance.now() - started);
      }
    }
    const started = performance.now();
    await createContextFiles({ db: store.db, dataDir }).rewrite(projects, Date.now());
    files = elapsed(started);
  } finally {
    store.close();
  }
  return during(dataDir, async () => {
    const answer: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      for (const project of projects) {
        const started = performance.now();
        const res = await fetch(`${worker.url}/api/context/inject?project=${encodeURIComponent(project)}`, { headers: worker.auth });
        await res.text();
        if (res.status !== 200) throw new Error(`context answer ${res.status}`);
        answer.push(performance.now() - started);
      }
    }
    return { build_in_process: summarize(build), worker_answer: summarize(answer), cold_start_files_rewrite_ms: files };
  });
}

/** The viewer's pages through its app (rendered as a browser gets them). */
async function viewerFigures(file: string, sampleSession: string, sampleObservation: number): Promise<Figure> {
  const store = openStore(file);
  try {
    const auth = createViewerAuth(() => 'b'.repeat(43));
    const app = createViewerApp({
      store,
      auth,
      access: { record: () => undefined },
      port: () => 1,
      clock: { now: () => 0 },
      nonce: () => 'n',
      log: silentLogger,
    });
    const host = { host: '127.0.0.1:1' };
    const exchanged = await app.request(`/?token=${auth.urlToken}`, { headers: host });
    const cookie = exchanged.headers.get('set-cookie')!.split(';')[0]!;
    const pages = {
      home: '/',
      session: `/session/${encodeURIComponent(sampleSession)}`,
      observation: `/observation/${sampleObservation}`,
      search: '/search?q=worker+hook+settings',
    };
    const out: Record<string, unknown> = {};
    for (const [name, url] of Object.entries(pages)) {
      const times: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const started = performance.now();
        const res = await app.request(url, { headers: { ...host, cookie } });
        await res.text();
        if (res.status !== 200) throw new Error(`viewer ${url}: ${res.status}`);
        times.push(performance.now() - started);
      }
      out[name] = summarize(times);
    }
    return out;
  } finally {
    store.close();
  }
}

export interface PathsInput {
  dataDir: string;
  scratch: string;
  projects: readonly string[];
  /** Fewer than 1,000 items in a project at every size (forget refuses a --match of more, whatever else narrows it). */
  forgetMatch: string;
  sampleSession: string;
  sampleObservation: number;
}

/** Every path, in an order where each leaves the store as the next expects (reads, then writes). */
export async function pathFigures(input: PathsInput): Promise<Record<string, unknown>> {
  const { dataDir, scratch } = input;
  const file = path.join(dataDir, 'memtrace.db');
  // Each figure also goes to stderr as it is taken: a run stopped midway (a 1M pass is long) keeps what it measured.
  const out = new Proxy<Record<string, unknown>>(
    {},
    {
      set(figures, key, value) {
        process.stderr.write(`memory-scale: ${String(key)} ${JSON.stringify(value)}\n`);
        figures[String(key)] = value;
        return true;
      },
    },
  );
  out.viewer = await viewerFigures(file, input.sampleSession, input.sampleObservation);
  const worker = await startWorker(dataDir);
  try {
    out.hook_latency_idle = (await hookLatencyDuring(dataDir, () => new Promise((resolve) => setTimeout(resolve, 2_000)))).latency;
    out.context = await contextFigures(dataDir, worker, input.projects);
    const exported = path.join(scratch, 'export.jsonl');
    out.export = await during(dataDir, async () => {
      const { ms } = await memtrace(['export', '--out', exported], dataDir);
      const mb = fs.statSync(exported).size / 1024 / 1024;
      return { process_ms: ms, file_mb: +mb.toFixed(1), mb_per_s: +(mb / (ms / 1000)).toFixed(1) };
    });
    out.forget_match = await during(dataDir, async () => JSON.parse((await child(['forget', dataDir, input.forgetMatch, input.projects[0]!])).stdout));
    out.repair_scan = await during(dataDir, async () => {
      const { ms, stdout } = await memtrace(['repair', 'scan', '--json'], dataDir);
      const report = JSON.parse(stdout) as { findings?: unknown[]; found?: number };
      return { process_ms: ms, found: report.found ?? report.findings?.length ?? null };
    });
  } finally {
    await worker.stop();
  }
  out.retention = await retentionFigure(dataDir, file);
  if (process.env.MEMORY_SCALE_IMPORT === '0') return out;
  const importDir = path.join(scratch, 'import-data');
  fs.mkdirSync(importDir, { recursive: true, mode: 0o700 });
  const source = await importSource(scratch);
  const importWorker = await startWorker(importDir);
  try {
    out.import = await during(importDir, async () => JSON.parse((await child(['import', importDir, source])).stdout));
  } finally {
    await importWorker.stop();
  }
  return out;
}

/** The export, or its first MEMORY_SCALE_IMPORT_LINES lines (a million lines take over half an hour beside a worker here). */
async function importSource(scratch: string): Promise<string> {
  const all = path.join(scratch, 'export.jsonl');
  const limit = Number(process.env.MEMORY_SCALE_IMPORT_LINES ?? Number.POSITIVE_INFINITY);
  if (!Number.isFinite(limit)) return all;
  const part = path.join(scratch, 'import.jsonl');
  const out = fs.createWriteStream(part);
  let n = 0;
  for await (const line of readline.createInterface({ input: fs.createReadStream(all), crlfDelay: Infinity })) {
    if (n++ >= limit) break;
    if (!out.write(`${line}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return part;
}

/**
 * The worker's own retention pass: a worker whose retention window ends 29 days before the
 * store's newest observation (what a 30-day window does a day after it), its first pass 10 s
 * after it starts. Hooks are posted all along; those posted while the pass ran are its figure.
 */
async function retentionFigure(dataDir: string, file: string): Promise<Figure> {
  const store = openStore(file);
  const newest = Number(store.db.prepare('SELECT max(created_at) FROM observations').pluck().get());
  store.close();
  const days = Math.round((Date.now() - newest) / DAY_MS) + 29;
  const worker = await startWorker(dataDir, { MEMTRACE_RAW_RETENTION_DAYS: String(days) });
  try {
    const { result, samples } = await hookLatencyDuring(dataDir, async () => {
      for (;;) {
        const res = await fetch(`${worker.url}/health`, { headers: worker.auth });
        const last = ((await res.json()) as { store?: { last_retention?: RetentionHealth | null } }).store?.last_retention;
        if (last) return last;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    });
    const from = Date.parse(result.at);
    const during_ = samples.filter((h) => h.at >= from && h.at <= from + result.duration_ms);
    // The same worker before its pass began: the idle figure beside it.
    const before = samples.filter((h) => h.at < from - 100);
    return { ...result, retention_days: days, hook_latency: hookSummary(during_), hook_latency_idle_before: hookSummary(before) };
  } finally {
    await worker.stop();
  }
}

interface RetentionHealth {
  at: string;
  duration_ms: number;
  longest_step_ms: number;
  removed: Record<string, number>;
}

/** bench/paced-writer-child.ts, as a user's command beside the worker. */
function child(args: string[]): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'bench', 'paced-writer-child.ts'), ...args],
      { cwd: ROOT, env: { ...process.env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(stderr.slice(0, 400) || error.message)) : resolve({ ms: elapsed(started), stdout })),
    );
  });
}
