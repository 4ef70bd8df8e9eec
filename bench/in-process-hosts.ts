/**
 * The OpenCode and pi part of `npm run bench -- hosts` (hosts.bench.ts calls it). The real CLI
 * runs its scripted session offline (AGENT-HOSTS-2.md §5's default script: a write, a read, an
 * edit, a failing `cat`, a read of a missing file, a final text) in three variants, interleaved
 * round by round so drift hits each alike:
 * - unhooked: the user's setup only (the fake provider; OpenCode's plugin dependencies in place);
 * - trivial: a do-nothing plugin (extension) on the same hooks memtrace uses (pi: also the same
 *   three tools, doing nothing): the host's own floor for an in-process plugin;
 * - installed: `memtrace install --host …` as a user runs it (plugin or extension, OpenCode's MCP
 *   entry), a worker running in its own process.
 * Per variant: wall time and the session's CPU (the CLI's whole process tree); for `installed`
 * also the events stored per session against its tool calls, and the worker's CPU per event
 * (its /proc CPU delta over the session ÷ events). Then the host CLI as memtrace's observer:
 * wall and CPU of one observer call (HOSTS_BENCH_OBSERVER_RUNS, default 3).
 * Knobs: HOSTS_BENCH_RUNS (rounds, default 3), HOSTS_BENCH_HOSTS (e.g. `opencode,pi`).
 */
import { startInstalledWorker } from './installed-worker.js';
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../src/cli/main.js';
import { memoryToolSpecs } from '../src/install/memory-tool-specs.js';
import { chooseObserver } from '../src/providers/index.js';
import { captureIO } from '../test/support/cli-io.js';
import {
  IN_PROCESS_BINS,
  inProcessHostUnavailableReason,
  prepareInProcessHome,
  runInProcessHost,
  startFakeModelApi,
  type InProcessHost,
} from '../test/support/in-process-hosts.js';
import { sandboxedBin } from '../test/support/observer-cli.js';
import { sqliteDriver } from '../src/store/sqlite-driver.js';
import { observationXml } from '../test/support/replies.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { childrenCpuMs, processCpuMs } from './process-cpu.js';
import { pairedRatio } from './stats.js';

type Variant = 'unhooked' | 'trivial' | 'installed';
const VARIANTS: Variant[] = ['unhooked', 'trivial', 'installed'];
const RUNS = Number(process.env.HOSTS_BENCH_RUNS) > 0 ? Number(process.env.HOSTS_BENCH_RUNS) : 3;
const OBSERVER_RUNS = Number(process.env.HOSTS_BENCH_OBSERVER_RUNS) > 0 ? Number(process.env.HOSTS_BENCH_OBSERVER_RUNS) : 3;
const TOOL_CALLS = 5;

const SCRIPT: Readonly<Record<InProcessHost, unknown[]>> = {
  opencode: [
    { call: 'bash', args: { command: 'echo hello > out.txt && echo hi', description: 'write out.txt' } },
    { call: 'read', args: { filePath: '${PROJECT}/out.txt' } },
    { call: 'edit', args: { filePath: '${PROJECT}/out.txt', oldString: 'hello', newString: 'hello world' } },
    { call: 'bash', args: { command: 'cat does-not-exist.txt', description: 'read a missing file' } },
    { call: 'read', args: { filePath: '${PROJECT}/does-not-exist.txt' } },
    { text: 'All steps done.' },
  ],
  pi: [
    { call: 'bash', args: { command: 'echo hello > out.txt && echo hi' } },
    { call: 'read', args: { path: '${PROJECT}/out.txt' } },
    { call: 'edit', args: { path: '${PROJECT}/out.txt', edits: [{ oldText: 'hello', newText: 'hello world' }] } },
    { call: 'bash', args: { command: 'cat does-not-exist.txt' } },
    { call: 'read', args: { path: '${PROJECT}/does-not-exist.txt' } },
    { text: 'All steps done.' },
  ],
};

/** A plugin (extension) on the hooks memtrace's uses, that does nothing. */
function trivialPlugin(host: InProcessHost, home: string, tools: unknown[]): void {
  if (host === 'opencode') {
    const dir = path.join(home, '.config', 'opencode', 'plugins');
    fs.mkdirSync(dir, { recursive: true });
    const hooks = ['event', 'chat.message', 'tool.execute.after', 'experimental.text.complete', 'dispose'].map((h) => `${JSON.stringify(h)}: async () => {}`);
    fs.writeFileSync(path.join(dir, 'trivial.js'), `export const Trivial = async () => ({ ${hooks.join(', ')} });\n`);
    return;
  }
  const dir = path.join(home, '.pi', 'agent', 'extensions');
  fs.mkdirSync(dir, { recursive: true });
  const events = ['session_start', 'before_agent_start', 'tool_result', 'agent_end', 'session_shutdown'];
  fs.writeFileSync(
    path.join(dir, 'trivial.ts'),
    `const TOOLS = ${JSON.stringify(tools)};\nexport default function (pi) {\n  for (const e of ${JSON.stringify(events)}) pi.on(e, async () => undefined);\n  for (const t of TOOLS) pi.registerTool({ name: 'memtrace_' + t.name, label: t.title, description: t.description, parameters: t.inputSchema, execute: async () => ({ content: [{ type: 'text', text: '' }], details: {} }) });\n}\n`,
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchInProcessHost(host: InProcessHost): Promise<Record<string, unknown>> {
  const unavailable = inProcessHostUnavailableReason(host);
  if (unavailable) return { skipped: unavailable };
  const temp = makeTempDir(`mt-bench-${host}-`);
  const dataDir = path.join(temp.dir, 'data');
  const worker = await startInstalledWorker({ MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
  try {
    const port = Number(new URL(worker.url).port);
    const env = { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PORT: String(port), MEMTRACE_TELEMETRY: '0' };
    const project = path.join(temp.dir, 'proj');
    fs.mkdirSync(project);
    const wall = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
    const cpu = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
    const delivered: number[] = [];
    const toolEventsStored: number[] = [];
    const workerCpuPerEvent: number[] = [];
    let n = 0;
    const once = async (variant: Variant, timed = true) => {
      const home = path.join(temp.dir, `home-${++n}`);
      fs.mkdirSync(home);
      const api = await startFakeModelApi({ projectDir: project, logFile: path.join(temp.dir, `api-${n}.jsonl`), script: SCRIPT[host] });
      try {
        prepareInProcessHome(host, home, api.port);
        if (variant === 'trivial') trivialPlugin(host, home, await memoryToolSpecs());
        if (variant === 'installed') {
          const c = captureIO({ env: { ...env, HOME: home } });
          if ((await main(['install', '--host', host], c.io)) !== 0) throw new Error(c.stderr());
        }
        const before = await health(worker.url);
        const workerCpu = processCpuMs(worker.pid);
        const childCpu = childrenCpuMs();
        const result = await runInProcessHost(host, { projectDir: project, home, apiPort: api.port, env, forwardPorts: [port], timeoutMs: 300_000 });
        if (result.exitCode !== 0) throw new Error(`${host} ${variant}: exited ${result.exitCode}: ${result.stderr.slice(-500)}`);
        if (!timed) return;
        wall[variant].push(result.wallMs);
        const spent = childrenCpuMs();
        if (spent !== null && childCpu !== null) cpu[variant].push(spent - childCpu);
        if (variant === 'installed') {
          // The plugin delivers in the background: wait until the session's end has arrived.
          const after = await waitForEvents(worker.url, before, 1 + 1 + TOOL_CALLS + 1 + 1);
          delivered.push(after - before);
          toolEventsStored.push(latestSessionToolEvents(path.join(dataDir, 'memtrace.db')));
          const used = processCpuMs(worker.pid);
          if (used !== null && workerCpu !== null && after > before) workerCpuPerEvent.push((used - workerCpu) / (after - before));
        }
      } finally {
        await api.close();
      }
    };
    await once('unhooked', false);
    await once('installed', false);
    for (let i = 0; i < RUNS; i += 1) for (const variant of VARIANTS) await once(variant);
    const figures = Object.fromEntries(
      VARIANTS.map((v) => [
        v,
        {
          runs_ms: wall[v].map(Math.round),
          median_ms: Math.round(median(wall[v])),
          cpu_ms: cpu[v],
          paired_vs_unhooked: pairedRatio(wall[v], wall.unhooked),
          paired_vs_trivial: pairedRatio(wall[v], wall.trivial),
          cpu_paired_vs_trivial: cpu[v].length === cpu.trivial.length && cpu[v].length > 0 ? pairedRatio(cpu[v], cpu.trivial) : null,
        },
      ]),
    );
    return {
      session: `${TOOL_CALLS} tool calls + final text`,
      events_delivered_per_installed_session: delivered,
      events_expected: `${1 + 1 + TOOL_CALLS + 1 + 1} (start, prompt, ${TOOL_CALLS} tool calls, turn end, session end)`,
      tool_events_stored_per_installed_session: toolEventsStored,
      worker_cpu_ms_per_event: workerCpuPerEvent.map((x) => Math.round(x * 100) / 100),
      ...figures,
      observer: await benchObserver(host, temp.dir),
    };
  } finally {
    await worker.stop();
    temp.cleanup();
  }
}

/** The tool events stored for the newest session (the one just run), read from the worker's database. */
function latestSessionToolEvents(dbFile: string): number {
  const db = new (sqliteDriver())(dbFile, { readonly: true });
  try {
    const row = db
      .prepare('SELECT count(*) AS n FROM tool_events WHERE session_id = (SELECT session_id FROM sessions ORDER BY created_at DESC LIMIT 1)')
      .get() as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

async function health(url: string): Promise<number> {
  const hooks = ((await (await fetch(`${url}/health`)).json()) as { hooks: { accepted: number; replayed_from_spool: number } }).hooks;
  return hooks.accepted + hooks.replayed_from_spool;
}

async function waitForEvents(url: string, before: number, expected: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const now = await health(url);
    if (now - before >= expected || Date.now() > deadline) return now;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One observer call through the real CLI (its own login: the fake provider), wall and CPU. */
async function benchObserver(host: InProcessHost, root: string): Promise<Record<string, unknown>> {
  const home = path.join(root, 'observer-home');
  fs.mkdirSync(home, { recursive: true });
  const reply = observationXml({ type: 'change', title: 'out.txt says hello world', narrative: 'The greeting was extended.' });
  const api = await startFakeModelApi({ projectDir: root, logFile: path.join(root, 'observer-api.jsonl'), script: [{ text: reply }], toollessMain: true });
  const bin = await sandboxedBin(host, IN_PROCESS_BINS[host], [api.port]);
  try {
    prepareInProcessHome(host, home, api.port);
    if (host === 'pi')
      fs.writeFileSync(path.join(home, '.pi', 'agent', 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'fake-model' }));
    const env = { PATH: `${bin.dir}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, FAKE_API_KEY: 'fake-key', MEMTRACE_TELEMETRY: '0' };
    const chosen = chooseObserver(env, { dataDir: path.join(root, 'observer-data') });
    if ('error' in chosen) throw new Error(chosen.error);
    const provider = chosen.choice.forPlatform(host)!;
    const request = {
      system: 'You turn agent events into observations.',
      messages: [{ role: 'user' as const, content: '<event id="e1">bash: echo hi</event>' }],
      maxOutputTokens: 1024,
    };
    await provider.complete(request); // warm-up (OpenCode also asks `debug config` once a minute)
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < OBSERVER_RUNS; i += 1) {
      const cpuBefore = childrenCpuMs();
      const started = performance.now();
      const result = await provider.complete(request);
      wall.push(performance.now() - started);
      const cpuAfter = childrenCpuMs();
      if (cpuBefore !== null && cpuAfter !== null) cpu.push(cpuAfter - cpuBefore);
      if (!result.text.includes('out.txt says hello world')) throw new Error(`${host} observer: unexpected reply ${result.text.slice(0, 200)}`);
    }
    return { runs_ms: wall.map(Math.round), median_ms: Math.round(median(wall)), cpu_ms: cpu, median_cpu_ms: cpu.length ? median(cpu) : null };
  } finally {
    await bin.close();
    await api.close();
  }
}
