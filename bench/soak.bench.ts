/**
 * `npm run bench -- soak`: one worker through a day's worth of sessions, then an upgrade.
 *
 * A worker of an install at 0.2.0 (a copy of this checkout's package) serves SOAK_SESSIONS agent
 * sessions fired as Claude Code fires them, through the installed forwarder (native build): a
 * SessionStart, SOAK_TOOLS tool events, a Stop (one observer call through the REAL Claude Code CLI,
 * offline against a fake Anthropic API, as a subscription user's login runs it), a SessionEnd.
 * Every SOAK_MCP_EVERY sessions an MCP session goes through the native bridge into the worker
 * (initialize, a search, close); every SOAK_VIEWER_EVERY sessions the viewer (its own process on
 * the same store) serves four pages and the HTTP API a context. The worker's RSS, file
 * descriptors, threads and child processes are sampled every SOAK_SAMPLE_EVERY sessions: before
 * (after SOAK_WARMUP sessions), after (queue drained), their growth, and the growth per 100
 * sessions fitted over the run's second half (the first sessions fill V8's heap and SQLite's cache).
 *
 * Then 0.3.0 is installed beside it and its hooks start firing back to back: the take-over time
 * (the new version's first hook → its worker answering /health) and each hook's wall time
 * meanwhile, against the same forwarder's steady time measured during the soak. At the end every
 * tool event fired must be in the store once (as many rows as ids), and the log must show one
 * worker start per version.
 *
 * Knobs: SOAK_SESSIONS (40), SOAK_TOOLS (10), SOAK_MCP_EVERY (4), SOAK_VIEWER_EVERY (5),
 * SOAK_SAMPLE_EVERY (5), SOAK_WARMUP (3), SOAK_OBSERVER (`claude`, or `none` to leave the CLI out),
 * SOAK_KEEP (`1` keeps the temp dir: logs, spool, store).
 * The load average is printed with the figures: compare ratios, not absolute times.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { readAuthToken, readWorkerInfo } from '../src/data-dir/index.js';
import { CLAUDE_BIN, claudeUnavailableReason, loopbackSandboxAvailable } from '../test/support/claude-code.js';
import { startFakeAnthropic } from '../test/support/fake-anthropic.js';
import { fireHook, hookPayload } from '../test/support/forwarder-session.js';
import { BridgeProcess, INITIALIZE } from '../test/support/mcp-bridge.js';
import { buildNativeForwarderInto } from '../test/support/native-forwarder.js';
import { oauthClaudeHome, sandboxedBin } from '../test/support/observer-cli.js';
import { installCopy } from '../test/support/package-copy.js';
import { observationXml, summaryXml } from '../test/support/replies.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { waitFor } from '../test/support/wait-for.js';
import { roundedPercentile } from './stats.js';
import { census, slope, type Census } from './worker-census.js';

export const name = 'soak';

const knob = (key: string, fallback: number) => Number(process.env[key] ?? fallback);
const SESSIONS = knob('SOAK_SESSIONS', 40);
const TOOLS = knob('SOAK_TOOLS', 10);
const MCP_EVERY = knob('SOAK_MCP_EVERY', 4);
const VIEWER_EVERY = knob('SOAK_VIEWER_EVERY', 5);
const SAMPLE_EVERY = knob('SOAK_SAMPLE_EVERY', 5);
const WARMUP = knob('SOAK_WARMUP', 3);
const TOOL_FIXTURES = ['post-tool-use-read.json', 'post-tool-use-bash.json', 'post-tool-use-edit.json'];
const REPLY =
  observationXml({ type: 'change', title: 'the soak changed a file', narrative: 'A tool event of the soak.' }) +
  summaryXml({ request: 'soak', completed: 'done' });

export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-soak-');
  const dataDir = path.join(temp.dir, 'data');
  const home = path.join(temp.dir, 'home');
  const projects = [0, 1, 2].map((i) => path.join(temp.dir, `project-${i}`));
  for (const p of projects) fs.mkdirSync(p, { recursive: true });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const older = installCopy(path.join(temp.dir, 'installs/older'), '0.2.0');
  const newer = installCopy(path.join(temp.dir, 'installs/newer'), '0.3.0');
  buildNativeForwarderInto(dataDir);
  const children: ChildProcess[] = [];
  const cleanups: Array<() => Promise<void> | void> = [];
  try {
    // The observer: the real Claude Code CLI, offline, logged in as a subscription user is.
    const cliUnavailable =
      process.env.SOAK_OBSERVER === 'none' ? 'SOAK_OBSERVER=none' : (claudeUnavailableReason() ?? (loopbackSandboxAvailable() ? null : 'no unshare -n'));
    const fake = await startFakeAnthropic({ script: [], auxiliaryText: REPLY });
    cleanups.push(() => fake.close());
    oauthClaudeHome(home, { hookMarkers: path.join(temp.dir, 'markers'), memoryCanary: 'SOAK' });
    const bin = cliUnavailable === null ? await sandboxedBin('claude', CLAUDE_BIN, [fake.port]) : null;
    if (bin) cleanups.push(() => bin.close());
    const env: Record<string, string> = {
      PATH: `${bin ? `${bin.dir}:` : ''}${path.dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      LANG: 'C.UTF-8',
      ANTHROPIC_BASE_URL: fake.url,
      MEMTRACE_DATA_DIR: dataDir,
      MEMTRACE_TELEMETRY: '0',
      MEMTRACE_PORT: '0',
      ...(bin ? {} : { MEMTRACE_PROVIDER: 'none' }),
    };
    await runToExit(process.execPath, [path.join(older, 'memtrace.cjs'), 'worker', 'start'], env);
    const worker = readWorkerInfo(dataDir)!;
    const token = readAuthToken(dataDir)!;
    const viewer = await startViewer(older, env, children);

    const hookMs: number[] = [];
    let firedTools = 0;
    const fire = async (binDir: string, event: string, payload: Buffer, cwd: string) => {
      const started = performance.now();
      await fireHook(binDir, event, payload, { env, cwd });
      hookMs.push(performance.now() - started);
    };
    const samples: Array<{ session: number } & Census> = [];
    let mcpSessions = 0;
    let viewerRequests = 0;
    for (let s = 1; s <= SESSIONS; s += 1) {
      const sessionId = `50a50000-0000-4000-8000-${String(s).padStart(12, '0')}`;
      const cwd = projects[s % projects.length]!;
      await fire(older, 'session-start', hookPayload('session-start.json', sessionId, cwd), cwd);
      for (let t = 0; t < TOOLS; t += 1) {
        await fire(older, 'post-tool-use', hookPayload(TOOL_FIXTURES[t % TOOL_FIXTURES.length]!, sessionId, cwd, `toolu_soak_${s}_${t}`), cwd);
        firedTools += 1;
      }
      await fire(older, 'stop', hookPayload('stop.json', sessionId, cwd), cwd);
      await fire(older, 'session-end', hookPayload('session-end.json', sessionId, cwd), cwd);
      if (s % MCP_EVERY === 0) {
        await mcpSession({ MEMTRACE_DATA_DIR: dataDir, HOME: home });
        mcpSessions += 1;
      }
      if (s % VIEWER_EVERY === 0) viewerRequests += await viewerRound(viewer, worker.port!, token, sessionId, cwd);
      if (s === WARMUP || s % SAMPLE_EVERY === 0) samples.push({ session: s, ...census(worker.pid) });
    }
    // The observer may still be behind (host CLI calls take seconds on a busy machine): waited for, bounded.
    const queueAfter = await drained(worker.port!, 300_000);
    const after = { session: SESSIONS, ...census(worker.pid) };
    const before = samples.find((x) => x.session === WARMUP) ?? samples[0]!;
    const steady = [...hookMs];

    // The upgrade: the newer install's hooks, back to back, while it takes over.
    const takeOver = await measureTakeOver(dataDir, newer, projects[0]!, env);
    await waitFor(async () => storedTools(dataDir).ids === firedTools + takeOver.tools, 60_000).catch(() => undefined);
    const stored = storedTools(dataDir);
    const newWorker = readWorkerInfo(dataDir);
    // Fitted over the second half of the run: the first sessions fill V8's heap and SQLite's cache.
    const growth = (key: keyof Census) => {
      const points = samples.filter((x) => x.session >= SESSIONS / 2 && x[key] !== null).map((x) => [x.session, x[key] as number] as [number, number]);
      const perSession = slope(points);
      return perSession === null ? null : Math.round(perSession * 100 * 10) / 10;
    };
    return {
      load_average: fs.readFileSync('/proc/loadavg', 'utf8').trim(),
      cpus: os.cpus().length,
      observer: cliUnavailable === null ? 'claude-code (the real CLI, offline)' : `none (${cliUnavailable})`,
      sessions: SESSIONS,
      tool_events: firedTools,
      hook_firings: steady.length,
      mcp_sessions: mcpSessions,
      viewer_requests: viewerRequests,
      observer_calls: fake.requests.filter((r) => r.kind === 'auxiliary').length,
      queue_at_after_sample: queueAfter,
      worker: {
        before: { after_sessions: before.session, ...strip(before) },
        after: { after_sessions: after.session, ...strip(after) },
        growth: {
          rss_mb: diff(after.rss_mb, before.rss_mb),
          fds: diff(after.fds, before.fds),
          threads: diff(after.threads, before.threads),
          descendants: after.descendants - before.descendants,
        },
        fitted_growth_per_100_sessions_second_half: {
          rss_mb: growth('rss_mb'),
          fds: growth('fds'),
          threads: growth('threads'),
          descendants: growth('descendants'),
        },
        samples,
      },
      viewer_process: census(viewer.child.pid!),
      hook_ms_steady: { p50: roundedPercentile(steady, 50), p95: roundedPercentile(steady, 95), max: roundedPercentile(steady, 100) },
      take_over: {
        from: '0.2.0',
        to: newWorker?.version ?? null,
        ms_first_new_hook_to_new_worker_answering: takeOver.ms,
        hooks_during: takeOver.during.length,
        hook_ms_during: {
          p50: roundedPercentile(takeOver.during, 50),
          p95: roundedPercentile(takeOver.during, 95),
          max: roundedPercentile(takeOver.during, 100),
        },
        p50_vs_steady: Math.round((roundedPercentile(takeOver.during, 50) / roundedPercentile(steady, 50)) * 100) / 100,
        served_by_old_after_first_new_hook: takeOver.servedByOld,
      },
      // One version change over the whole soak: two starts (0.2.0, then 0.3.0) is one restart.
      worker_starts: workerStarts(dataDir),
      every_tool_event_stored_once: stored.ids === firedTools + takeOver.tools && stored.rows === stored.ids,
      tool_events_fired: firedTools + takeOver.tools,
      tool_events_stored: stored,
      tool_events_missing: missingTools(dataDir, SESSIONS, TOOLS, takeOver.tools),
    };
  } finally {
    const info = readWorkerInfo(dataDir);
    if (info) process.kill(info.pid, 'SIGTERM');
    for (const child of children) child.kill('SIGTERM');
    if (info) await waitFor(() => readWorkerInfo(dataDir) === null, 20_000).catch(() => undefined);
    for (const cleanup of cleanups.reverse()) await cleanup();
    // SOAK_KEEP=1 leaves the data dir (logs, spool, store) for a look afterwards.
    if (process.env.SOAK_KEEP === '1') process.stderr.write(`soak: kept ${temp.dir}\n`);
    else temp.cleanup();
  }
}

const strip = ({ rss_mb, fds, threads, descendants }: Census) => ({ rss_mb, fds, threads, descendants });
const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.round((a - b) * 10) / 10);

function runToExit(file: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

async function startViewer(binDir: string, env: Record<string, string>, children: ChildProcess[]) {
  const child = spawn(process.execPath, [path.join(binDir, 'memtrace.cjs'), 'viewer', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  await waitFor(() => /viewer: (http:\/\/\S+)/.test(out), 20_000);
  const url = new URL(/viewer: (http:\/\/\S+)/.exec(out)![1]!);
  const first = await fetch(url, { redirect: 'manual' });
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { child, origin: url.origin, cookie };
}

async function viewerRound(viewer: { origin: string; cookie: string }, workerPort: number, token: string, sessionId: string, cwd: string): Promise<number> {
  const pages = ['/', '/search?q=soak', '/spend', `/session/${sessionId}`];
  for (const page of pages) await (await fetch(`${viewer.origin}${page}`, { headers: { cookie: viewer.cookie } })).arrayBuffer();
  await (
    await fetch(`http://127.0.0.1:${workerPort}/api/context/inject?cwd=${encodeURIComponent(cwd)}`, { headers: { authorization: `Bearer ${token}` } })
  ).text();
  return pages.length + 1;
}

async function mcpSession(env: Record<string, string>): Promise<void> {
  const bridge = new BridgeProcess('native', env);
  try {
    await bridge.send(INITIALIZE);
    await bridge.message();
    await bridge.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await bridge.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'soak' } } });
    await bridge.message();
  } finally {
    bridge.close();
    await bridge.exited;
  }
}

/** Waits (bounded) until the queue is empty and no call is in flight (at once without an observer); what was left either way. */
async function drained(port: number, timeoutMs: number): Promise<{ queue_depth: number; in_flight: number }> {
  let last = { queue_depth: -1, in_flight: -1, observing: true };
  await waitFor(async () => {
    last = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as typeof last;
    return (last.queue_depth === 0 || !last.observing) && last.in_flight === 0;
  }, timeoutMs).catch(() => undefined);
  return { queue_depth: last.queue_depth, in_flight: last.in_flight };
}

/** The soak's tool ids that are not in the store (at most 20 named). */
function missingTools(dataDir: string, sessions: number, tools: number, takeOverTools: number): string[] {
  const db = new Database(path.join(dataDir, 'memtrace.db'), { readonly: true });
  try {
    const stored = new Set(
      (db.prepare("SELECT tool_use_id AS id FROM tool_events WHERE tool_use_id LIKE 'toolu_soak_%'").all() as Array<{ id: string }>).map((r) => r.id),
    );
    const fired = [
      ...Array.from({ length: sessions * tools }, (_, i) => `toolu_soak_${Math.floor(i / tools) + 1}_${i % tools}`),
      ...Array.from({ length: takeOverTools }, (_, i) => `toolu_soak_takeover_${i}`),
    ];
    return fired.filter((id) => !stored.has(id)).slice(0, 20);
  } finally {
    db.close();
  }
}

/** The version of every worker start the log records (`worker starting, version V, pid P`), in order. */
function workerStarts(dataDir: string): string[] {
  const log = fs.readFileSync(path.join(dataDir, 'logs/worker.log'), 'utf8');
  return [...log.matchAll(/"msg":"worker starting, version ([^,"]+), pid \d+"/g)].map((m) => m[1]!);
}

/** The soak's tool events in the store: distinct ids, and rows (more rows than ids would be an event stored twice). */
function storedTools(dataDir: string): { ids: number; rows: number } {
  const db = new Database(path.join(dataDir, 'memtrace.db'), { readonly: true });
  try {
    return db.prepare("SELECT count(DISTINCT tool_use_id) AS ids, count(*) AS rows FROM tool_events WHERE tool_use_id LIKE 'toolu_soak_%'").get() as {
      ids: number;
      rows: number;
    };
  } finally {
    db.close();
  }
}

/** Fires the newer install's hooks back to back from its first one until its worker answers, and a few more. */
async function measureTakeOver(dataDir: string, newer: string, cwd: string, env: Record<string, string>) {
  const sessionId = '50a50000-0000-4000-8000-999999999999';
  const oldPid = readWorkerInfo(dataDir)!.pid;
  const during: number[] = [];
  const startedAt = performance.now();
  let answeredAt: number | null = null;
  let tools = 0;
  const watch = (async () => {
    while (answeredAt === null && performance.now() - startedAt < 120_000) {
      const info = readWorkerInfo(dataDir);
      if (info?.version === '0.3.0' && info.port) {
        try {
          const health = (await (await fetch(`http://127.0.0.1:${info.port}/health`)).json()) as { version: string };
          if (health.version === '0.3.0') answeredAt = performance.now();
        } catch {
          /* not yet */
        }
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  for (let extra = 0; extra < 10; extra += answeredAt === null ? 0 : 1) {
    if (performance.now() - startedAt > 120_000) break;
    const began = performance.now();
    await fireHook(newer, 'post-tool-use', hookPayload('post-tool-use-read.json', sessionId, cwd, `toolu_soak_takeover_${tools}`), { env, cwd });
    during.push(performance.now() - began);
    tools += 1;
  }
  await watch;
  // What the new worker took, live or from the spool; the old one took the rest.
  let servedByOld: number | null = null;
  const info = readWorkerInfo(dataDir);
  if (info?.port && info.pid !== oldPid) {
    await waitFor(() => !fs.readdirSync(path.join(dataDir, 'spool/events')).some((n) => n.endsWith('.json')), 30_000).catch(() => undefined);
    // `accepted` counts live calls and spooled ones replayed alike.
    const health = (await (await fetch(`http://127.0.0.1:${info.port}/health`)).json()) as { hooks: { accepted: number } };
    servedByOld = tools - health.hooks.accepted;
  }
  return { ms: answeredAt === null ? null : Math.round(answeredAt - startedAt), during, servedByOld, tools };
}
