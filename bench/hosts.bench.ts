import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../src/cli/main.js';
import { captureIO } from '../test/support/cli-io.js';
import { startChildWorker, type ChildWorker } from '../test/support/child-worker.js';
import { HOST_BINS, hostUnavailableReason, prepareHostHome, runHostCli, startHostFakeApi, type AgentHost } from '../test/support/host-cli.js';
import { hostScript } from '../test/support/host-scenario.js';
import { makeTempDir } from '../test/support/temp-dir.js';

export const name = 'hosts';

const HOSTS: AgentHost[] = ['gemini-cli', 'codex'];
/** unhooked: no memtrace; hooked: `memtrace install --host … --project` as written; hooks_only: the same without the MCP server entry. */
type Variant = 'unhooked' | 'hooked' | 'hooks_only';
const VARIANTS: Variant[] = ['unhooked', 'hooked', 'hooks_only'];
const RUNS = Number(process.env.HOSTS_BENCH_RUNS) > 0 ? Number(process.env.HOSTS_BENCH_RUNS) : 3;
/** Issue 22's bound on the hooked session, per host (hooked ÷ unhooked, same run); issue 21 asked for 1.5 and 3. */
const TARGET: Readonly<Record<AgentHost, number>> = { 'gemini-cli': 1.1, codex: 1.5 };

const E2E_FILES = ['test/e2e/host-gemini-cli.test.ts', 'test/e2e/host-codex.test.ts'];

/**
 * Wall time of each host's real CLI running its scripted session offline (the fake API's default
 * steps: a write, a read, an edit, a failing command; Gemini also reads a missing file), without
 * memtrace, with what `memtrace install --host` writes, and with its hooks alone (memtrace's MCP
 * server entry removed), against a memtrace worker in its own process. One discarded warm-up,
 * then the variants interleaved so drift hits each alike. Also: the CI time the two real-CLI
 * test files add (set HOSTS_BENCH_E2E=0 to skip).
 */
export async function run(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const host of HOSTS) {
    const unavailable = hostUnavailableReason(host);
    out[host] = unavailable ? { skipped: unavailable } : await benchHost(host);
  }
  if (process.env.HOSTS_BENCH_E2E !== '0') out.ci_real_cli_tests = await e2eWallTime();
  return out;
}

async function benchHost(host: AgentHost): Promise<Record<string, unknown>> {
  const temp = makeTempDir(`memtrace-bench-${host}-`);
  const worker = await startChildWorker({ MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'), MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
  try {
    const port = String(new URL(worker.url).port);
    const env = { MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'), MEMTRACE_PORT: port, MEMTRACE_TELEMETRY: '0' };
    const projects = Object.fromEntries(await Promise.all(VARIANTS.map(async (v) => [v, await project(host, temp.dir, v, env)] as const))) as Record<
      Variant,
      string
    >;
    const samples: Record<Variant, number[]> = { unhooked: [], hooked: [], hooks_only: [] };
    const stored: number[] = [];
    let n = 0;
    const once = async (variant: Variant) => {
      const before = await accepted(worker);
      const home = path.join(temp.dir, `home-${++n}`);
      const api = await startHostFakeApi(host, { projectDir: projects[variant], logFile: path.join(temp.dir, `api-${n}.jsonl`), script: hostScript(host) });
      try {
        prepareHostHome(host, home, api.port, projects[variant]);
        const result = await runHostCli(host, {
          projectDir: projects[variant],
          home,
          apiPort: api.port,
          env,
          forwardPorts: [Number(port)],
          timeoutMs: 180_000,
        });
        if (result.exitCode !== 0) throw new Error(`${host} ${variant}: exited ${result.exitCode}: ${result.stderr.slice(-500)}`);
        if (variant !== 'unhooked') stored.push((await accepted(worker)) - before - 1); // session start makes two calls
        return result.wallMs;
      } finally {
        await api.close();
      }
    };
    await once('unhooked');
    for (let i = 0; i < RUNS; i += 1) for (const variant of VARIANTS) samples[variant].push(await once(variant));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const base = median(samples.unhooked);
    const figures = Object.fromEntries(
      VARIANTS.map((v) => [
        v,
        { runs_ms: samples[v].map(Math.round), median_ms: Math.round(median(samples[v])), vs_unhooked: Math.round((median(samples[v]) / base) * 100) / 100 },
      ]),
    );
    return {
      version: execFileSync(HOST_BINS[host], ['--version'], { encoding: 'utf8' }).trim(),
      session: `${hostScript(host).length - 1} tool calls + final text`,
      events_stored_per_hooked_session: stored,
      target_ratio: TARGET[host],
      ...figures,
    };
  } finally {
    await worker.stop();
    temp.cleanup();
  }
}

async function project(host: AgentHost, root: string, variant: Variant, env: Record<string, string>): Promise<string> {
  const dir = path.join(root, `project-${variant}`);
  fs.mkdirSync(dir);
  execFileSync('git', ['init', '-q', dir]);
  if (variant === 'unhooked') return dir;
  const c = captureIO({ env: { ...env, HOME: path.join(root, 'installer-home') } });
  if ((await main(['install', '--host', host, '--project', dir], c.io)) !== 0) throw new Error(c.stderr());
  if (variant === 'hooks_only') {
    if (host === 'gemini-cli') {
      const file = path.join(dir, '.gemini', 'settings.json');
      const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
      delete settings.mcpServers;
      fs.writeFileSync(file, JSON.stringify(settings, null, 2));
    } else fs.rmSync(path.join(dir, '.codex', 'config.toml'));
  }
  return dir;
}

async function accepted(worker: ChildWorker): Promise<number> {
  return ((await (await fetch(`${worker.url}/health`)).json()) as { hooks: { accepted: number } }).hooks.accepted;
}

/** The slow vitest project's run of the two real-CLI test files, as CI runs it. */
function e2eWallTime(): Promise<Record<string, unknown>> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'slow-e2e', ...E2E_FILES], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    child.once('close', (code) => resolve({ files: E2E_FILES, exit_code: code, wall_s: Math.round((performance.now() - started) / 100) / 10 }));
  });
}
