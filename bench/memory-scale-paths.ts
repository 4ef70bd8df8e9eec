/**
 * Every memory path but search at one size (issue 36), each timed and each run while a real
 * worker on the same data dir takes PostToolUse hooks (bench/hook-probe.ts): SessionStart context
 * (the worker's answer, and the cold-start file the worker rewrites), the viewer's pages, export,
 * import (into an empty data dir with its own worker), forget --match, a retention pass and
 * repair scan. The commands run as the user runs them (their own process); the retention pass
 * runs in a process of its own too (the worker's is held off), so what a hook waits for is the
 * store's write lock, as it is for a pass inside the worker between its batches.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../src/log.js';
import { buildContext, createContextQuery, DEFAULT_BUDGET_TOKENS } from '../src/context/index.js';
import { openStore } from '../src/store/index.js';
import { createViewerApp, createViewerAuth } from '../src/viewer/index.js';
import { createContextFiles } from '../src/worker/context-files.js';
import { startChildWorker, type ChildWorker } from '../test/support/child-worker.js';
import { hookLatencyDuring, type HookLatency } from './hook-probe.js';
import { summarize } from './stats.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin', 'memtrace.cjs');
const elapsed = (started: number) => Math.round(performance.now() - started);

/** The worker as the bench runs it: no observer, no telemetry, its own retention and size budget held off (the bench runs a pass itself). */
function workerEnv(dataDir: string): Record<string, string> {
  return {
    MEMTRACE_DATA_DIR: dataDir,
    MEMTRACE_PROVIDER: 'none',
    MEMTRACE_TELEMETRY: '0',
    MEMTRACE_RAW_RETENTION_DAYS: '36500',
    MEMTRACE_MAX_DB_MB: '10000000',
  };
}

function startWorker(dataDir: string): Promise<ChildWorker> {
  return startChildWorker(workerEnv(dataDir));
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
    createContextFiles({ db: store.db, dataDir }).rewrite(projects, Date.now());
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
    out.forget_match = await during(dataDir, async () => {
      const { ms, stdout } = await memtrace(['forget', '--match', input.forgetMatch, '--project', input.projects[0]!, '--yes'], dataDir);
      return { process_ms: ms, said: stdout.trim().split('\n').slice(-2) };
    });
    out.retention = await during(dataDir, async () => {
      const { ms, stdout } = await runRetentionChild(dataDir);
      return { process_ms: ms, report: JSON.parse(stdout) as unknown };
    });
    out.repair_scan = await during(dataDir, async () => {
      const { ms, stdout } = await memtrace(['repair', 'scan', '--json'], dataDir);
      const report = JSON.parse(stdout) as { findings?: unknown[]; found?: number };
      return { process_ms: ms, found: report.found ?? report.findings?.length ?? null };
    });
  } finally {
    await worker.stop();
  }
  if (process.env.MEMORY_SCALE_IMPORT === '0') return out;
  const importDir = path.join(scratch, 'import-data');
  fs.mkdirSync(importDir, { recursive: true, mode: 0o700 });
  const importWorker = await startWorker(importDir);
  try {
    out.import = await during(importDir, async () => {
      const { ms, stdout } = await memtrace(['import', path.join(scratch, 'export.jsonl'), '--json'], importDir);
      return { process_ms: ms, report: JSON.parse(stdout) as unknown };
    });
  } finally {
    await importWorker.stop();
  }
  return out;
}

/** A retention pass in its own process over the data dir: what the worker's pass does, batch by batch. */
function runRetentionChild(dataDir: string): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'bench', 'retention-child.ts'), dataDir],
      { cwd: ROOT, env: { ...process.env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(stderr.slice(0, 400) || error.message)) : resolve({ ms: elapsed(started), stdout })),
    );
  });
}
