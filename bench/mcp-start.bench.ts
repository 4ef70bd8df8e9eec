import { spawn } from 'node:child_process';
import { startInstalledWorker } from './installed-worker.js';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createMemorySearch } from '../src/memory/index.js';
import { openStore } from '../src/store/index.js';
import { startChildWorker } from '../test/support/child-worker.js';
import { buildNativeForwarderInto } from '../test/support/native-forwarder.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { buildCorpus, loadQuestions } from './memory-corpus.js';
import { fillStore } from './memory-synthetic.js';
import { addToSplit, cpuSnapshot, splitPerEvent, type CpuSplit } from './process-cpu.js';
import { roundedPercentile, summarize } from './stats.js';

export const name = 'mcp-start';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/memtrace.cjs');
const FORWARDER = path.join(ROOT, 'bin/memtrace-hook');
const RUNS = Number(process.env.BENCH_MCP_RUNS ?? 20);
const SEARCH_CALLS = Number(process.env.BENCH_MCP_SEARCHES ?? 200);
const SEARCH_OBSERVATIONS = Number(process.env.BENCH_MCP_OBSERVATIONS ?? 100_000);
const CPU_SESSIONS = Number(process.env.BENCH_MCP_CPU_SESSIONS ?? 60);
/** The gap between sessions for the spaced figure: about one agent session's length (a short Codex `exec` run). */
const SPACED_GAP_MS = Number(process.env.BENCH_MCP_CPU_GAP_MS ?? 600);
const HOST_START = ['{"jsonrpc":"2.0","method":"notifications/initialized"}', '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'].join('\n');
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

/**
 * What a host waits for at every session start: from spawning its MCP server to the answer to
 * `initialize`, interleaved, against a bare `node -e 0` (spawn to exit) and a bare Node that
 * answers one line (the floor of any Node server):
 * - bridge_*: what install registers (`sh bin/memtrace-hook mcp <node>`), the native build in the
 *   data dir, against a running worker (warm: its SDK loaded); the Perl bridge the same way;
 * - bridge_cold: the same with no worker, so it hands over to the Node stdio server;
 * - node_stdio_server: `memtrace mcp` itself, as 0.2.0 registered it (compiled-code cache,
 *   empty NODE_EXTRA_CA_CERTS).
 * Then what the worker spends on a host's start of its MCP session through the bridge (initialize,
 * initialized, tools/list: what every agent session costs it), in CPU per session read from /proc,
 * and an MCP search's round trip through the bridge into the worker, at 100k observations.
 */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-mcp-bench-');
  const warmDir = path.join(temp.dir, 'warm');
  const coldDir = path.join(temp.dir, 'cold');
  for (const dir of [warmDir, coldDir]) {
    fs.mkdirSync(dir, { mode: 0o700 });
    buildNativeForwarderInto(dir);
  }
  const ca: Record<string, string> = process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {};
  const base = { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_TELEMETRY: '0' };
  // As the host's config gives it: install writes an empty NODE_EXTRA_CA_CERTS into the entry's env.
  const installed = (dataDir: string) => ({ ...base, MEMTRACE_DATA_DIR: dataDir, NODE_EXTRA_CA_CERTS: '' });
  const worker = await startInstalledWorker({ MEMTRACE_DATA_DIR: warmDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
  const variants: Record<string, { command: string; args: string[]; env: Record<string, string>; until: 'answer' | 'exit' }> = {
    node_e_0: { command: process.execPath, args: ['-e', '0'], env: { ...base, ...ca }, until: 'exit' },
    node_answering_a_line: {
      command: process.execPath,
      args: ['-e', "process.stdin.once('data', () => process.stdout.write('{}\\n'))"],
      env: { ...base, ...ca },
      until: 'answer',
    },
    bridge_native_as_installed: { command: 'sh', args: [FORWARDER, 'mcp', process.execPath], env: installed(warmDir), until: 'answer' },
    bridge_perl: {
      command: 'perl',
      args: [path.join(ROOT, 'bin/memtrace-mcp.pl'), warmDir, process.execPath, BIN, 'mcp'],
      env: installed(warmDir),
      until: 'answer',
    },
    bridge_cold_hands_over_to_node: { command: 'sh', args: [FORWARDER, 'mcp', process.execPath], env: installed(coldDir), until: 'answer' },
    node_stdio_server: { command: process.execPath, args: [BIN, 'mcp'], env: installed(coldDir), until: 'answer' },
  };
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  try {
    for (let i = -2; i < RUNS; i += 1) {
      for (const [key, v] of Object.entries(variants)) {
        const ms = await timeToAnswer(v.command, v.args, v.env, v.until);
        if (i >= 0) samples[key]!.push(ms);
      }
    }
    const p = (xs: number[], q: number) => roundedPercentile(xs, q);
    const floor = p(samples.node_e_0!, 50);
    const server = p(samples.node_stdio_server!, 50);
    const start = Object.fromEntries(
      Object.entries(samples).map(([key, xs]) => [
        key,
        {
          p50_ms: p(xs, 50),
          p95_ms: p(xs, 95),
          vs_node_e_0: Math.round((p(xs, 50) / floor) * 100) / 100,
          vs_node_stdio_server: Math.round((p(xs, 50) / server) * 100) / 100,
        },
      ]),
    );
    const bridge = variants.bridge_native_as_installed!;
    const hostStart = () => timeToAnswer(bridge.command, bridge.args, bridge.env, 'tool_list');
    const workerCpu = await workerCpuPerSession(worker.pid, hostStart, 0);
    const spacedCpu = await workerCpuPerSession(worker.pid, hostStart, SPACED_GAP_MS);
    // The same windows with no session: what an idle worker spends in them (its timers).
    const idleCpu = await workerCpuPerSession(worker.pid, async () => undefined, SPACED_GAP_MS);
    await worker.stop();
    return {
      runs: RUNS,
      node_extra_ca_certs: Boolean(process.env.NODE_EXTRA_CA_CERTS),
      spawn_to_initialize: start,
      worker_cpu_per_session: workerCpu,
      worker_cpu_per_spaced_session: spacedCpu,
      worker_cpu_idle_per_gap: idleCpu,
      search_through_bridge: await searchThroughBridge(path.join(temp.dir, 'search')),
    };
  } finally {
    await worker.stop();
    temp.cleanup();
  }
}

/** An MCP search's round trip (SDK client → bridge → worker → back) at SEARCH_OBSERVATIONS observations, p50/p95. */
async function searchThroughBridge(dataDir: string): Promise<Record<string, unknown>> {
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const store = openStore(path.join(dataDir, 'memtrace.db'));
  const seeded = performance.now();
  try {
    fillStore(store, buildCorpus(), SEARCH_OBSERVATIONS, { seed: 28 });
    store.db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    store.close();
  }
  const seedS = (performance.now() - seeded) / 1000;
  buildNativeForwarderInto(dataDir);
  const worker = await startChildWorker({ MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
  const queries = loadQuestions().map((q) => q.q);
  const client = new Client({ name: 'bench', version: '1' });
  try {
    await client.connect(
      new StdioClientTransport({
        command: 'sh',
        args: [FORWARDER, 'mcp', process.execPath],
        env: { PATH: process.env.PATH ?? '', HOME: dataDir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' },
        stderr: 'ignore',
      }),
    );
    for (let i = 0; i < 20; i += 1) await client.callTool({ name: 'search', arguments: { query: queries[i % queries.length]! } });
    const calls: number[] = [];
    for (let i = 0; i < SEARCH_CALLS; i += 1) {
      const started = performance.now();
      await client.callTool({ name: 'search', arguments: { query: queries[i % queries.length]! } });
      calls.push(performance.now() - started);
    }
    await client.close();
    await worker.stop();
    return {
      observations: SEARCH_OBSERVATIONS,
      seed_s: Math.round(seedS * 10) / 10,
      ...summarize(calls),
      target: 'p95 ≤ 20 ms',
      same_queries_in_process: searchInProcess(dataDir, queries),
    };
  } finally {
    await client.close();
    await worker.stop();
  }
}

/** The same searches called in this process on the same store: what the round trip adds is the difference. */
function searchInProcess(dataDir: string, queries: readonly string[]): ReturnType<typeof summarize> {
  const store = openStore(path.join(dataDir, 'memtrace.db'));
  try {
    const search = createMemorySearch(store.db);
    for (let i = 0; i < 20; i += 1) search.search(queries[i % queries.length]!);
    const calls: number[] = [];
    for (let i = 0; i < SEARCH_CALLS; i += 1) {
      const started = performance.now();
      search.search(queries[i % queries.length]!);
      calls.push(performance.now() - started);
    }
    return summarize(calls);
  } finally {
    store.close();
  }
}

/**
 * The worker's CPU per MCP session a host starts, over CPU_SESSIONS sessions (after 5 not
 * counted): one after another, or `gapMs` apart as agent sessions come (the worker idle between,
 * so what a session's code costs when it has not just run). Each session's window runs to the
 * start of the next, so its teardown after the host goes away is counted too.
 */
async function workerCpuPerSession(pid: number, session: () => Promise<unknown>, gapMs: number): Promise<Record<string, unknown> | null> {
  for (let i = 0; i < 5; i += 1) await session();
  let split: CpuSplit | undefined;
  for (let i = 0; i < CPU_SESSIONS; i += 1) {
    const before = cpuSnapshot(pid);
    await session();
    // Back to back too, a moment for the worker to end the session the host left.
    await new Promise((resolve) => setTimeout(resolve, Math.max(gapMs, 20)));
    const after = cpuSnapshot(pid);
    if (!before || !after) return null;
    split = addToSplit(split, before, after, 1);
  }
  return split ? { sessions: CPU_SESSIONS, gap_ms: gapMs, ms_per_session: splitPerEvent(split) } : null;
}

/**
 * From spawn to the first answer (`answer`), to the exit (`exit`), or through a host's whole start
 * of its MCP session (`tool_list`: initialize, initialized and tools/list, over when the tool list
 * came), in ms.
 */
function timeToAnswer(command: string, args: string[], env: Record<string, string>, until: 'answer' | 'exit' | 'tool_list'): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    child.on('error', reject);
    if (until === 'exit') {
      child.once('exit', () => resolve(performance.now() - started));
      child.stdin.end();
      return;
    }
    if (until === 'tool_list') {
      let answered = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        answered += chunk;
        if (answered.includes('"id":2')) child.stdin.end();
      });
      child.once('exit', () =>
        answered.includes('"tools"') ? resolve(performance.now() - started) : reject(new Error(`no tool list: ${answered.slice(0, 200)}`)),
      );
      child.stdin.write(`${INITIALIZE}${HOST_START}\n`);
      return;
    }
    child.stdout.once('data', () => {
      const ms = performance.now() - started;
      child.stdin.end();
      child.once('exit', () => resolve(ms));
    });
    child.stdin.write(INITIALIZE);
  });
}
