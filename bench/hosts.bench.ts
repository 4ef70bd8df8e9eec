import { execFileSync, spawn } from 'node:child_process';
import { startInstalledWorker } from './installed-worker.js';
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../src/cli/main.js';
import { captureIO } from '../test/support/cli-io.js';
import type { ChildWorker } from '../test/support/child-worker.js';
import { HOST_BINS, hostUnavailableReason, prepareHostHome, runHostCli, startHostFakeApi, type AgentHost } from '../test/support/host-cli.js';
import { hostScript } from '../test/support/host-scenario.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { offersMemtraceTools } from '../test/support/mcp-tools.js';
import { makeFloorProject, writeMcpStandIn } from './host-floor.js';
import { pairedDifference, pairedRatio, pairedRatioInterval, roundOrder } from './stats.js';
import { buildNativeForwarderInto } from '../test/support/native-forwarder.js';
import { stopStartedWorker } from '../test/support/started-worker.js';
import { expectedFirings } from '../test/support/host-scenario.js';
import { childrenCpuMs, processCpuMs } from './process-cpu.js';
import { benchInProcessHost } from './in-process-hosts.js';

export const name = 'hosts';

/** The hosts with command hooks; OpenCode and pi (an in-process plugin, extension) are bench/in-process-hosts.ts. */
const HOSTS: AgentHost[] = ['gemini-cli', 'codex', 'copilot'];
/** HOSTS_BENCH_HOSTS=copilot,pi (comma-separated): only these hosts (default: every one). */
const ONLY =
  process.env.HOSTS_BENCH_HOSTS?.split(',')
    .map((h) => h.trim())
    .filter(Boolean) ?? null;
/**
 * HOSTS_BENCH_ONLY_VARIANTS=hooked,floor: only these variants besides unhooked, the base (more
 * rounds of the pair a target compares, in the same time).
 */
const ONLY_VARIANTS =
  process.env.HOSTS_BENCH_ONLY_VARIANTS?.split(',')
    .map((v) => v.trim())
    .filter(Boolean) ?? null;
/**
 * unhooked: no memtrace; hooked: `memtrace install --host … --project` as written (the hooks, and
 * the bridge as the MCP server), a worker running; hooks_only: the same without the MCP server
 * entry; cold: what install writes with no worker running (the bridge hands over to the Node stdio
 * server; the session's SessionStart starts a worker, stopped after the run); trivial_hooks
 * (Copilot): the same events hooked by `cat > /dev/null`, the floor of any command hook; floor
 * (issue 36): the host's own cost of any hooks and any MCP server, as host-floor.ts makes it
 * (target: hooked ≤ 1.03 × floor, paired). Opt-in (HOSTS_BENCH_VARIANTS, comma-separated):
 * without_tool_hooks, hooked minus the per-tool hook (AfterTool, PostToolUse); floor_mcp, memtrace's
 * hooks with the floor's MCP stand-in (what memtrace's MCP server costs apart from its hooks).
 */
type Variant = 'unhooked' | 'trivial_hooks' | 'hooked' | 'hooks_only' | 'cold' | 'without_tool_hooks' | 'floor' | 'floor_mcp';
const OPT_IN_VARIANTS: readonly Variant[] = ['without_tool_hooks', 'floor_mcp'];
const DEFAULT_VARIANTS: Variant[] = ['unhooked', 'hooked', 'hooks_only', 'cold', 'floor'];
const EXTRA_VARIANTS: Readonly<Partial<Record<AgentHost, Variant[]>>> = { copilot: ['trivial_hooks'] };
const WITH_MCP: ReadonlySet<Variant> = new Set(['hooked', 'cold', 'without_tool_hooks', 'floor', 'floor_mcp']);
const RUNS = Number(process.env.HOSTS_BENCH_RUNS) > 0 ? Number(process.env.HOSTS_BENCH_RUNS) : 3;
/** Issue 28's bound on the hooked session, per host (hooked ÷ unhooked, same run). */
const TARGET: Readonly<Record<AgentHost, number>> = { 'gemini-cli': 1.1, codex: 1.15, copilot: 1.1 };
const TOOL_HOOK: Readonly<Record<AgentHost, string>> = { 'gemini-cli': 'AfterTool', codex: 'PostToolUse', copilot: 'postToolUse' };

const E2E_FILES = [
  'test/e2e/host-gemini-cli.test.ts',
  'test/e2e/host-codex.test.ts',
  'test/e2e/host-opencode.test.ts',
  'test/e2e/host-copilot.test.ts',
  'test/e2e/host-pi.test.ts',
];

/**
 * Wall time of each host's real CLI running its scripted session offline (the fake API's default
 * steps: a write, a read, an edit, a failing command; Gemini also reads a missing file) in each
 * variant, against a memtrace worker in its own process, and whether memtrace's tools were in the
 * session's first model request. One discarded warm-up, then the variants interleaved so drift
 * hits each alike. Also: the CI time the real-CLI host test files add (set HOSTS_BENCH_E2E=0 to skip).
 */
export async function run(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const host of HOSTS) {
    if (ONLY && !ONLY.includes(host)) continue;
    const unavailable = hostUnavailableReason(host);
    out[host] = unavailable ? { skipped: unavailable } : await benchHost(host);
  }
  // OpenCode and pi: an in-process plugin (extension) instead of hooks (bench/in-process-hosts.ts).
  for (const host of ['opencode', 'pi'] as const) if (!ONLY || ONLY.includes(host)) out[host] = await benchInProcessHost(host);
  if (process.env.HOSTS_BENCH_E2E !== '0') out.ci_real_cli_tests = await e2eWallTime();
  return out;
}

async function benchHost(host: AgentHost): Promise<Record<string, unknown>> {
  const temp = makeTempDir(`memtrace-bench-${host}-`);
  const variants = (
    [
      'unhooked',
      ...(EXTRA_VARIANTS[host] ?? []),
      // Copilot CLI's floor is its trivial_hooks variant: host-floor.ts builds the other hosts' floors.
      ...DEFAULT_VARIANTS.slice(1).filter((v) => v !== 'floor' || host !== 'copilot'),
      ...OPT_IN_VARIANTS.filter((v) => (process.env.HOSTS_BENCH_VARIANTS ?? '').split(',').includes(v) && (!v.startsWith('floor_') || host !== 'copilot')),
    ] as Variant[]
  ).filter((v) => v === 'unhooked' || !ONLY_VARIANTS || ONLY_VARIANTS.includes(v));
  const dataDir = path.join(temp.dir, 'data');
  const coldDir = path.join(temp.dir, 'cold-data');
  const worker = await startInstalledWorker({ MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
  try {
    const port = String(new URL(worker.url).port);
    const envFor = (variant: Variant) => ({ MEMTRACE_DATA_DIR: variant === 'cold' ? coldDir : dataDir, MEMTRACE_PORT: port, MEMTRACE_TELEMETRY: '0' });
    const projects = {} as Record<Variant, string>;
    for (const v of variants) projects[v] = await project(host, temp.dir, v, envFor(v));
    const samples = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
    const toolsSeen = Object.fromEntries(variants.map((v) => [v, 0])) as Record<Variant, number>;
    /** CPU of the session's whole process tree (CLI, hooks, MCP servers) and of the worker, per run (ms). */
    const cpu = Object.fromEntries(variants.map((v) => [v, { session: [] as number[], worker: [] as number[] }])) as Record<
      Variant,
      { session: number[]; worker: number[] }
    >;
    /**
     * Where each run's time went (ms, by the fake API's log, to the millisecond): from the spawn to
     * the first model request (the host's start: its MCP servers' handshakes, SessionStart and
     * UserPromptSubmit), from there to the last request (the turns, the tool hooks), and from
     * there to the exit (Stop, SessionEnd, the host's shutdown).
     */
    const phases = Object.fromEntries(variants.map((v) => [v, { start: [] as number[], turns: [] as number[], end: [] as number[] }])) as Record<
      Variant,
      { start: number[]; turns: number[]; end: number[] }
    >;
    const stored: number[] = [];
    let n = 0;
    const once = async (variant: Variant, timed = true) => {
      if (variant === 'cold') {
        // The data dir as install left it (the native build), with no worker and no memory yet.
        fs.rmSync(coldDir, { recursive: true, force: true });
        fs.mkdirSync(coldDir, { mode: 0o700 });
        buildNativeForwarderInto(coldDir);
      }
      const before = await accepted(worker);
      const home = path.join(temp.dir, `home-${++n}`);
      const api = await startHostFakeApi(host, { projectDir: projects[variant], logFile: path.join(temp.dir, `api-${n}.jsonl`), script: hostScript(host) });
      try {
        prepareHostHome(host, home, api.port, projects[variant]);
        const cpuBefore = { session: childrenCpuMs(), worker: processCpuMs(worker.pid) };
        const startedAt = Date.now();
        const result = await runHostCli(host, {
          projectDir: projects[variant],
          home,
          apiPort: api.port,
          env: envFor(variant),
          forwardPorts: [Number(port)],
          timeoutMs: 180_000,
        });
        const endedAt = Date.now();
        if (result.exitCode !== 0) throw new Error(`${host} ${variant}: exited ${result.exitCode}: ${result.stderr.slice(-500)}`);
        if (!timed) return result.wallMs;
        const cpuAfter = { session: childrenCpuMs(), worker: processCpuMs(worker.pid) };
        if (cpuBefore.session !== null && cpuAfter.session !== null) cpu[variant].session.push(cpuAfter.session - cpuBefore.session);
        if (cpuBefore.worker !== null && cpuAfter.worker !== null) cpu[variant].worker.push(cpuAfter.worker - cpuBefore.worker);
        if (variant === 'hooked' || variant === 'hooks_only') stored.push((await accepted(worker)) - before - 1); // session start makes two calls
        const times = api.requests().map((r) => Date.parse(r.ts));
        if (times.length > 0) {
          phases[variant].start.push(times[0]! - startedAt);
          phases[variant].turns.push(times.at(-1)! - times[0]!);
          phases[variant].end.push(endedAt - times.at(-1)!);
        }
        const first = api.requests().find((r) => r.kind === 'main');
        if (first && offersMemtraceTools(host, first.body)) toolsSeen[variant] += 1;
        return result.wallMs;
      } finally {
        await api.close();
        if (variant === 'cold') await stopStartedWorker(coldDir);
      }
    };
    await once('unhooked', false);
    await once('hooked', false); // the worker's first MCP session loads the SDK: before anything is timed
    for (let i = 0; i < RUNS; i += 1) for (const variant of roundOrder(variants, i)) samples[variant].push(await once(variant));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const base = median(samples.unhooked);
    const figures = Object.fromEntries(
      variants.map((v) => [
        v,
        {
          runs_ms: samples[v].map(Math.round),
          median_ms: Math.round(median(samples[v])),
          vs_unhooked: Math.round((median(samples[v]) / base) * 100) / 100,
          paired_vs_unhooked: pairedRatio(samples[v], samples.unhooked),
          ...(samples.trivial_hooks && v !== 'trivial_hooks' && v !== 'unhooked'
            ? { paired_vs_trivial_hooks: pairedRatio(samples[v], samples.trivial_hooks) }
            : {}),
          // Issue 36: against the host's own floor (any hooks, any MCP server), same run.
          ...(v !== 'floor' && samples.floor
            ? {
                vs_floor: Math.round((median(samples[v]) / median(samples.floor)) * 100) / 100,
                paired_vs_floor: pairedRatio(samples[v], samples.floor),
                paired_vs_floor_ci95: pairedRatioInterval(samples[v], samples.floor),
                // Which part of the session the difference sits in: ms over the floor, [low, median, high] of 95 %.
                phases_ms_over_floor: {
                  start: pairedDifference(phases[v].start, phases.floor.start),
                  turns: pairedDifference(phases[v].turns, phases.floor.turns),
                  end: pairedDifference(phases[v].end, phases.floor.end),
                },
              }
            : {}),
          phases_ms_median: { start: median0(phases[v].start), turns: median0(phases[v].turns), end: median0(phases[v].end) },
          cpu_ms_median: { session_process_tree: median0(cpu[v].session), worker: median0(cpu[v].worker) },
          // /proc counts in 10 ms ticks: over many runs the mean resolves what a median of ticks cannot.
          cpu_ms_mean: { session_process_tree: mean0(cpu[v].session), worker: mean0(cpu[v].worker) },
          ...(WITH_MCP.has(v) ? { memtrace_tools_in_first_request: `${toolsSeen[v]}/${RUNS}` } : {}),
        },
      ]),
    );
    // What memtrace's hooks cost in CPU, per hook event: the hooked session's tree and the worker, above the unhooked session.
    const firings = Object.values(expectedFirings(host, hostScript(host).length - 1)).reduce((a, b) => a + b, 0);
    const perEvent = (v: Variant) =>
      cpu[v].session.length === 0 || cpu.unhooked.session.length === 0
        ? null
        : Math.round(((median0(cpu[v].session) + median0(cpu[v].worker) - median0(cpu.unhooked.session)) / firings) * 10) / 10;
    return {
      version: execFileSync(HOST_BINS[host], ['--version'], { encoding: 'utf8' }).trim(),
      session: `${hostScript(host).length - 1} tool calls + final text`,
      hook_events_per_session: firings,
      cpu_ms_per_hook_event: Object.fromEntries(variants.filter((v) => v !== 'unhooked').map((v) => [v, perEvent(v)])),
      events_stored_per_hooked_session: stored,
      target_ratio: TARGET[host],
      ...figures,
    };
  } finally {
    await worker.stop();
    await stopStartedWorker(coldDir);
    temp.cleanup();
  }
}

const mean0 = (xs: number[]) => (xs.length === 0 ? 0 : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10);
const median0 = (xs: number[]) => (xs.length === 0 ? 0 : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);

/** The same events as memtrace's hooks, each running only `cat > /dev/null` (Copilot's hook file format). */
function writeTrivialCopilotHooks(dir: string): void {
  const file = path.join(dir, '.github', 'hooks', 'trivial.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const events = Object.keys(expectedFirings('copilot', 1));
  fs.writeFileSync(
    file,
    JSON.stringify({ version: 1, hooks: Object.fromEntries(events.map((e) => [e, [{ type: 'command', bash: 'cat > /dev/null', timeoutSec: 10 }]])) }),
  );
}

async function project(host: AgentHost, root: string, variant: Variant, env: Record<string, string>): Promise<string> {
  const dir = path.join(root, `project-${variant}`);
  fs.mkdirSync(dir);
  execFileSync('git', ['init', '-q', dir]);
  if (variant === 'unhooked') return dir;
  if (variant === 'trivial_hooks') {
    writeTrivialCopilotHooks(dir);
    return dir;
  }
  const c = captureIO({ env: { ...env, HOME: path.join(root, 'installer-home') } });
  if ((await main(['install', '--host', host, '--project', dir], c.io)) !== 0) throw new Error(c.stderr());
  if (variant === 'floor' && host !== 'copilot') makeFloorProject(host, dir, await writeMcpStandIn(root));
  if (variant === 'floor_mcp' && host !== 'copilot') makeFloorProject(host, dir, await writeMcpStandIn(root), 'memtrace');
  const hooksFile =
    host === 'gemini-cli'
      ? path.join(dir, '.gemini', 'settings.json')
      : host === 'copilot'
        ? path.join(dir, '.github', 'hooks', 'memtrace.json')
        : path.join(dir, '.codex', 'hooks.json');
  if (variant === 'hooks_only') {
    if (host === 'copilot') fs.rmSync(path.join(dir, '.github', 'mcp.json'));
    else if (host === 'gemini-cli') {
      const settings = JSON.parse(fs.readFileSync(hooksFile, 'utf8'));
      delete settings.mcpServers;
      fs.writeFileSync(hooksFile, JSON.stringify(settings, null, 2));
    } else fs.rmSync(path.join(dir, '.codex', 'config.toml'));
  }
  if (variant === 'without_tool_hooks') {
    const settings = JSON.parse(fs.readFileSync(hooksFile, 'utf8'));
    delete settings.hooks[TOOL_HOOK[host]];
    fs.writeFileSync(hooksFile, JSON.stringify(settings, null, 2));
  }
  return dir;
}

async function accepted(worker: ChildWorker): Promise<number> {
  return ((await (await fetch(`${worker.url}/health`)).json()) as { hooks: { accepted: number } }).hooks.accepted;
}

/** The slow vitest project's run of the real-CLI host test files, as CI runs it. */
function e2eWallTime(): Promise<Record<string, unknown>> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'slow-e2e', ...E2E_FILES], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    child.once('close', (code) => resolve({ files: E2E_FILES, exit_code: code, wall_s: Math.round((performance.now() - started) / 100) / 10 }));
  });
}
