import fs from 'node:fs';
import { startInstalledWorker } from './installed-worker.js';
import http from 'node:http';
import path from 'node:path';
import { main } from '../src/cli/main.js';
import { writeContextFile } from '../src/data-dir/index.js';
import type { ChildWorker } from '../test/support/child-worker.js';
import { claudeUnavailableReason, claudeVersion, runClaudeCode } from '../test/support/claude-code.js';
import { basicScript, BASIC_PROMPT, writeBasicProject } from '../test/support/claude-code-scenario.js';
import { captureIO } from '../test/support/cli-io.js';
import { startFakeAnthropic } from '../test/support/fake-anthropic.js';
import { stopStartedWorker } from '../test/support/started-worker.js';
import { buildNativeForwarderInto } from '../test/support/native-forwarder.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { makeFloorProject, writeMcpStandIn } from './host-floor.js';
import { childrenCpuMs, processCpuMs } from './process-cpu.js';
import { pairedRatio, pairedRatioInterval, roundOrder, roundedPercentile } from './stats.js';

const BIN = path.resolve(import.meta.dirname, '../bin/memtrace.cjs');

export const name = 'claude-code-hooks';

/**
 * no_hooks: the project has no hooks and no MCP server. memtrace: what `memtrace install
 * --project` writes (the forwarder's hooks, and the bridge as the MCP server in .mcp.json) and
 * builds (the native forwarder in the data dir), a worker running. memtrace_hooks_only: the same
 * without .mcp.json. memtrace_cold: the same as memtrace with no worker running (context from the
 * kept file, the bridge hands over to the Node stdio server; the first hook starts the worker,
 * stopped again after the run). Opt-in (BENCH_CC_VARIANTS, comma-separated), for decisions:
 * memtrace_without_tool_hooks (installed minus PostToolUse/PostToolUseFailure),
 * memtrace_node_mcp (installed hooks with the Node stdio server, as 0.2.0 registered it).
 * BENCH_CC_HOST_ENV (`K=V,K=V`) is given to Claude Code in every variant alike, the unhooked one
 * included: for trying the host's own settings (e.g. CLAUDE_CODE_MCP_STARTUP_WAIT_MS=0).
 * host_floor (issue 36): the installed project with every hook `true` and the MCP server a
 * stand-in answering only with memtrace's tool list (host-floor.ts): what any hooks and any MCP
 * server cost Claude Code; every variant is also given against it (target: memtrace ≤ 1.03×).
 */
type Variant =
  | 'no_hooks'
  | 'memtrace'
  | 'memtrace_hooks_only'
  | 'memtrace_cold'
  | 'memtrace_without_tool_hooks'
  | 'memtrace_node_mcp'
  | 'memtrace_mcp_only'
  | 'static_mcp_floor'
  | 'static_http_mcp_floor'
  | 'host_floor';
const DEFAULT_VARIANTS: Variant[] = ['no_hooks', 'memtrace', 'memtrace_hooks_only', 'memtrace_cold', 'host_floor'];
const OPTIONAL_VARIANTS: Variant[] = ['memtrace_without_tool_hooks', 'memtrace_node_mcp', 'memtrace_mcp_only', 'static_mcp_floor', 'static_http_mcp_floor'];
const RUNS = Number(process.env.BENCH_CC_RUNS ?? 7);
/** BENCH_CC_ONLY_VARIANTS=host_floor: only these besides no_hooks and memtrace (more rounds of one pair in the same time). */
const ONLY_VARIANTS = process.env.BENCH_CC_ONLY_VARIANTS?.split(',').map((v) => v.trim()) ?? null;
const HOST_ENV: Record<string, string> = Object.fromEntries(
  (process.env.BENCH_CC_HOST_ENV ?? '')
    .split(',')
    .filter((kv) => kv.includes('='))
    .map((kv) => [kv.slice(0, kv.indexOf('=')).trim(), kv.slice(kv.indexOf('=') + 1).trim()]),
);
const WITH_MCP: ReadonlySet<Variant> = new Set([
  'memtrace',
  'memtrace_cold',
  'memtrace_without_tool_hooks',
  'memtrace_node_mcp',
  'memtrace_mcp_only',
  'static_mcp_floor',
  'static_http_mcp_floor',
  'host_floor',
]);

/**
 * Wall time of the real Claude Code CLI running the scripted 4-tool session offline (fake API),
 * interleaved after one discarded warm-up so drift hits every variant alike, and whether
 * memtrace's tools were in the session's first model request (Claude Code lists an MCP server's
 * tools only once it answered `initialize` and `tools/list`). The share is the ratio of medians;
 * the target (issue 28) is memtrace ≤ 1.05 × no_hooks.
 */
export async function run(): Promise<Record<string, unknown>> {
  const unavailable = claudeUnavailableReason();
  if (unavailable) return { skipped: unavailable };
  const wanted = (process.env.BENCH_CC_VARIANTS ?? '').split(',').filter((v): v is Variant => (OPTIONAL_VARIANTS as string[]).includes(v));
  const variants = [...DEFAULT_VARIANTS, ...wanted].filter((v) => v === 'no_hooks' || v === 'memtrace' || !ONLY_VARIANTS || ONLY_VARIANTS.includes(v));
  const temp = makeTempDir('memtrace-bench-cc-');
  const dataDir = path.join(temp.dir, 'data');
  const coldDir = path.join(temp.dir, 'cold-data');
  const dirs = Object.fromEntries(variants.map((v) => [v, path.join(temp.dir, v)])) as Record<Variant, string>;
  let httpFloor: http.Server | null = null;
  for (const variant of variants) {
    fs.mkdirSync(dirs[variant]);
    if (variant === 'no_hooks') continue;
    if (variant === 'static_mcp_floor') {
      await writeStaticMcpServer(dirs[variant], temp.dir);
      continue;
    }
    if (variant === 'static_http_mcp_floor') {
      httpFloor = await startStaticHttpMcpServer(dirs[variant], temp.dir);
      continue;
    }
    // With the data dir the sessions use: install builds the native forwarder there.
    const install = captureIO({ env: { HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir } });
    if ((await main(['install', '--project', dirs[variant]], install.io)) !== 0) throw new Error(install.stderr());
    if (variant === 'host_floor') makeFloorProject('claude-code', dirs[variant], await writeMcpStandIn(temp.dir));
  }
  if (variants.includes('memtrace_hooks_only')) fs.rmSync(path.join(dirs.memtrace_hooks_only, '.mcp.json'));
  if (variants.includes('memtrace_without_tool_hooks')) dropToolHooks(dirs.memtrace_without_tool_hooks);
  if (variants.includes('memtrace_mcp_only')) fs.rmSync(path.join(dirs.memtrace_mcp_only, '.claude', 'settings.json'));
  if (variants.includes('memtrace_node_mcp'))
    fs.writeFileSync(
      path.join(dirs.memtrace_node_mcp, '.mcp.json'),
      JSON.stringify({ mcpServers: { memtrace: { type: 'stdio', command: process.execPath, args: [BIN, 'mcp'], env: { NODE_EXTRA_CA_CERTS: '' } } } }),
    );
  let worker: ChildWorker | null = await startInstalledWorker({ MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
  const samples = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  const toolsSeen = Object.fromEntries(variants.map((v) => [v, 0])) as Record<Variant, number>;
  const cpu = Object.fromEntries(variants.map((v) => [v, { session: [] as number[], worker: [] as number[] }])) as Record<
    Variant,
    { session: number[]; worker: number[] }
  >;
  try {
    await once(dirs.no_hooks, {}, temp.dir);
    // The worker's first MCP session loads the SDK: once, before anything is timed.
    await once(dirs.memtrace, { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' }, temp.dir);
    for (let i = 0; i < RUNS; i += 1) {
      for (const variant of roundOrder(variants, i)) {
        if (variant === 'memtrace_cold') {
          fs.rmSync(coldDir, { recursive: true, force: true });
          fs.mkdirSync(coldDir, { mode: 0o700 });
          buildNativeForwarderInto(coldDir);
          writeContextFile(
            coldDir,
            dirs.memtrace_cold,
            `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '# memtrace context\n- kept from the last run' } })}\n`,
          );
        }
        const env: Record<string, string> =
          variant === 'no_hooks'
            ? {}
            : { MEMTRACE_DATA_DIR: variant === 'memtrace_cold' ? coldDir : dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' };
        const cpuBefore = { session: childrenCpuMs(), worker: processCpuMs(worker.pid) };
        const result = await once(dirs[variant], env, temp.dir);
        samples[variant].push(result.wallMs);
        const cpuAfter = { session: childrenCpuMs(), worker: processCpuMs(worker.pid) };
        if (cpuBefore.session !== null && cpuAfter.session !== null) cpu[variant].session.push(cpuAfter.session - cpuBefore.session);
        // The running worker's share (the cold variant's own worker starts and stops with its run, not counted here).
        if (cpuBefore.worker !== null && cpuAfter.worker !== null) cpu[variant].worker.push(cpuAfter.worker - cpuBefore.worker);
        if (result.memtraceToolsInFirstRequest) toolsSeen[variant] += 1;
        if (variant === 'memtrace_cold') await stopStartedWorker(coldDir);
      }
    }
    const health = (await (await fetch(`${worker.url}/health`)).json()) as { hooks: Record<string, number> };
    const med = (xs: number[]) => roundedPercentile(xs, 50, 0);
    const base = med(samples.no_hooks);
    return {
      claude: claudeVersion(),
      session: '4 tool calls (Bash ok, Read, Edit, Bash exit 3) + final text, claude -p',
      runs: RUNS,
      ...Object.fromEntries(
        variants.map((v) => [
          v,
          {
            runs_ms: samples[v].map(Math.round),
            median_ms: med(samples[v]),
            vs_no_hooks: Math.round((med(samples[v]) / base) * 100) / 100,
            // Each round's ratio to that round's no_hooks run, then the median: steadier when the machine's load drifts.
            paired_vs_no_hooks: pairedRatio(samples[v], samples.no_hooks),
            // Issue 36: memtrace's own share, against the host's cost of any hooks and any MCP server, same run.
            ...(variants.includes('host_floor') && v !== 'host_floor'
              ? {
                  vs_host_floor: Math.round((med(samples[v]) / med(samples.host_floor)) * 100) / 100,
                  paired_vs_host_floor: pairedRatio(samples[v], samples.host_floor),
                  paired_vs_host_floor_ci95: pairedRatioInterval(samples[v], samples.host_floor),
                }
              : {}),
            ...(WITH_MCP.has(v) ? { memtrace_tools_in_first_request: `${toolsSeen[v]}/${RUNS}` } : {}),
            cpu_ms_median: { session_process_tree: med(cpu[v].session), worker: med(cpu[v].worker) },
          },
        ]),
      ),
      target: 'memtrace ≤ 1.03 × host_floor, paired (issue 36; issue 28: ≤ 1.05 × no_hooks); memtrace tools in the first request',
      host_env: HOST_ENV,
      worker_hooks: health.hooks,
    };
  } finally {
    await worker?.stop();
    worker = null;
    httpFloor?.close();
    await stopStartedWorker(coldDir);
    temp.cleanup();
  }
}

/** A stand-in MCP server with nothing behind it (host-floor.ts) as the project's only MCP server. */
async function writeStaticMcpServer(projectDir: string, tempDir: string): Promise<void> {
  const standIn = await writeMcpStandIn(tempDir);
  fs.writeFileSync(path.join(projectDir, '.mcp.json'), JSON.stringify({ mcpServers: { memtrace: { type: 'stdio', ...standIn } } }));
}

/**
 * The same stand-in as an MCP server over Streamable HTTP that is already running (in this
 * process, on a loopback port): what a server costs the host when it spawns nothing. Not a
 * design memtrace can ship as is — the worker takes no TCP connections (hooks and MCP reach it
 * only through the Unix socket in the data dir) — but it tells the host's stdio cost apart.
 */
async function startStaticHttpMcpServer(projectDir: string, tempDir: string): Promise<http.Server> {
  await writeStaticMcpServer(projectDir, tempDir);
  const tools = fs.readFileSync(path.join(tempDir, 'static-mcp-tools.json'), 'utf8');
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: unknown; method?: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      const result =
        message.method === 'initialize'
          ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'memtrace', version: '0' } }
          : message.method === 'tools/list'
            ? JSON.parse(tools)
            : null;
      const reply =
        result === null ? { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'not here' } } : { jsonrpc: '2.0', id: message.id, result };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  fs.writeFileSync(path.join(projectDir, '.mcp.json'), JSON.stringify({ mcpServers: { memtrace: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } }));
  return server;
}

/** The installed hooks without the per-tool ones: what reading tool calls from the transcript instead would leave. */
function dropToolHooks(projectDir: string): void {
  const file = path.join(projectDir, '.claude', 'settings.json');
  const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
  delete settings.hooks.PostToolUse;
  delete settings.hooks.PostToolUseFailure;
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
}

async function once(projectDir: string, env: Record<string, string>, tempDir: string): Promise<{ wallMs: number; memtraceToolsInFirstRequest: boolean }> {
  const notes = writeBasicProject(projectDir);
  const fake = await startFakeAnthropic({ script: basicScript(notes) });
  const home = fs.mkdtempSync(path.join(tempDir, 'home-'));
  try {
    const result = await runClaudeCode({ projectDir, prompt: BASIC_PROMPT, apiUrl: fake.url, home, env: { ...HOST_ENV, ...env }, timeoutMs: 120_000 });
    if (result.exitCode !== 0 || fake.remainingTurns() !== 0)
      throw new Error(`claude exited ${result.exitCode} with ${fake.remainingTurns()} turns left: ${result.stderr}`);
    // Claude Code 2.1.330 defers MCP tools: their names are listed in the request for ToolSearch to load.
    const first = JSON.stringify(fake.mainBodies()[0] ?? {});
    return { wallMs: result.wallMs, memtraceToolsInFirstRequest: first.includes('mcp__memtrace__search') };
  } finally {
    await fake.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}
