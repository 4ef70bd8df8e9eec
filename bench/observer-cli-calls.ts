/**
 * The wall and CPU time of one observer call through each real host CLI (Claude Code, Gemini CLI,
 * Codex: the pinned devDependencies), each against its fake model API on loopback, beside a baseline
 * measured the same way in the same run: starting `node -e 0`. CPU is the children's user + system
 * time from /proc/self/stat (cutime + cstime), which covers everything the CLI started.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chooseObserver } from '../src/providers/index.js';
import type { CompletionRequest } from '../src/providers/types.js';
import { CLAUDE_BIN } from '../test/support/claude-code.js';
import { startFakeAnthropic } from '../test/support/fake-anthropic.js';
import { HOST_BINS, prepareHostHome, startHostFakeApi } from '../test/support/host-cli.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { roundedPercentile } from './stats.js';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time (ms) of every child this process has reaped so far. */
function childrenCpuMs(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14 here.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

async function measure(n: number, once: () => Promise<void>): Promise<{ wall_ms_p50: number; cpu_ms_per_call: number }> {
  const walls: number[] = [];
  const cpuBefore = childrenCpuMs();
  for (let i = 0; i < n; i += 1) {
    const started = performance.now();
    await once();
    walls.push(performance.now() - started);
  }
  return { wall_ms_p50: roundedPercentile(walls, 50), cpu_ms_per_call: Math.round((childrenCpuMs() - cpuBefore) / n) };
}

const nodeBaseline = () =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve());
  });

export interface CliCallFigures {
  baseline_node_e_0: { wall_ms_p50: number; cpu_ms_per_call: number };
  providers: Record<string, Record<string, unknown>>;
}

/** `calls` observer calls of `request` through each CLI found in node_modules/.bin. */
export async function measureCliCalls(request: CompletionRequest, calls: number, reply: string): Promise<CliCallFigures> {
  const temp = makeTempDir('memtrace-bench-cli-');
  const providers: Record<string, Record<string, unknown>> = {};
  try {
    const baseline = await measure(calls, nodeBaseline);
    const binDir = path.dirname(CLAUDE_BIN);
    const dataDir = path.join(temp.dir, 'data');
    const hosts = [
      { name: 'claude-code', bin: CLAUDE_BIN },
      { name: 'gemini-cli', bin: HOST_BINS['gemini-cli'] },
      { name: 'codex', bin: HOST_BINS.codex },
    ] as const;
    for (const host of hosts) {
      if (!fs.existsSync(host.bin)) {
        providers[host.name] = { skipped: `${host.bin} is missing` };
        continue;
      }
      const home = path.join(temp.dir, `home-${host.name}`);
      fs.mkdirSync(home, { recursive: true });
      let env: Record<string, string | undefined>;
      let close: () => Promise<void>;
      if (host.name === 'claude-code') {
        const api = await startFakeAnthropic({ script: [], auxiliaryText: reply });
        fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
        env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-bench' };
        close = () => api.close();
      } else {
        const api = await startHostFakeApi(host.name, {
          projectDir: temp.dir,
          logFile: path.join(temp.dir, `${host.name}.log`),
          script: [{ text: reply }],
          sideText: reply,
        });
        prepareHostHome(host.name, home, api.port, null);
        env =
          host.name === 'gemini-cli' ? { GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${api.port}`, GEMINI_API_KEY: 'bench' } : { FAKE_OPENAI_API_KEY: 'bench' };
        close = () => api.close();
      }
      try {
        const chosen = chooseObserver(
          { PATH: `${binDir}:${process.env.PATH ?? ''}`, HOME: home, LANG: 'C.UTF-8', MEMTRACE_PROVIDER: host.name, ...env },
          { dataDir },
        );
        if ('error' in chosen) throw new Error(chosen.error);
        const provider = chosen.choice.primary;
        let usage: unknown = null;
        const figures = await measure(calls, async () => {
          usage = (await provider.complete(request)).usage;
        });
        providers[host.name] = {
          calls,
          ...figures,
          wall_vs_baseline: Math.round((figures.wall_ms_p50 / baseline.wall_ms_p50) * 10) / 10,
          cpu_vs_baseline: baseline.cpu_ms_per_call > 0 ? Math.round((figures.cpu_ms_per_call / baseline.cpu_ms_per_call) * 10) / 10 : null,
          usage_reported_by_fake: usage,
        };
      } catch (error) {
        providers[host.name] = { error: error instanceof Error ? error.message : String(error) };
      } finally {
        await close();
      }
    }
    return { baseline_node_e_0: baseline, providers };
  } finally {
    temp.cleanup();
  }
}
