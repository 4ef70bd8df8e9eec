import fs from 'node:fs';
import path from 'node:path';
import { main } from '../src/cli/main.js';
import { writeContextFile } from '../src/data-dir/index.js';
import { startChildWorker, type ChildWorker } from '../test/support/child-worker.js';
import { claudeUnavailableReason, claudeVersion, runClaudeCode } from '../test/support/claude-code.js';
import { basicScript, BASIC_PROMPT, writeBasicProject } from '../test/support/claude-code-scenario.js';
import { captureIO } from '../test/support/cli-io.js';
import { startFakeAnthropic } from '../test/support/fake-anthropic.js';
import { stopStartedWorker } from '../test/support/started-worker.js';
import { buildNativeForwarderInto } from '../test/support/native-forwarder.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { roundedPercentile } from './stats.js';

export const name = 'claude-code-hooks';

type Variant = 'no_hooks' | 'memtrace' | 'memtrace_hooks_only' | 'memtrace_cold';
const VARIANTS: Variant[] = ['no_hooks', 'memtrace', 'memtrace_hooks_only', 'memtrace_cold'];
const RUNS = Number(process.env.BENCH_CC_RUNS ?? 7);

/**
 * Wall time of the real Claude Code CLI running the scripted 4-tool session offline (fake API),
 * interleaved after one discarded warm-up so drift hits every variant alike:
 * - no_hooks: the project has no hooks;
 * - memtrace: what `memtrace install --project` writes (the forwarder's hooks and the MCP server
 *   in .mcp.json) and builds (the native forwarder in the data dir), a worker running;
 * - memtrace_hooks_only: the same without .mcp.json: the hooks' own share;
 * - memtrace_cold: the same hooks with no worker running (context from the kept file; the first
 *   hook starts the worker, which is stopped again after the run).
 * The share is the ratio of medians; the target (issue 22) is memtrace ≤ 1.05 × no_hooks.
 */
export async function run(): Promise<Record<string, unknown>> {
  const unavailable = claudeUnavailableReason();
  if (unavailable) return { skipped: unavailable };
  const temp = makeTempDir('memtrace-bench-cc-');
  const dataDir = path.join(temp.dir, 'data');
  const coldDir = path.join(temp.dir, 'cold-data');
  const hooked = path.join(temp.dir, 'hooked');
  const hooksOnly = path.join(temp.dir, 'hooks-only');
  const bare = path.join(temp.dir, 'bare');
  for (const dir of [hooked, hooksOnly, bare]) fs.mkdirSync(dir);
  for (const dir of [hooked, hooksOnly]) {
    // With the data dir the sessions use: install builds the native forwarder there.
    const install = captureIO({ env: { HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir } });
    if ((await main(['install', '--project', dir], install.io)) !== 0) throw new Error(install.stderr());
  }
  fs.rmSync(path.join(hooksOnly, '.mcp.json'));
  let worker: ChildWorker | null = await startChildWorker({ MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
  const samples: Record<Variant, number[]> = { no_hooks: [], memtrace: [], memtrace_hooks_only: [], memtrace_cold: [] };
  try {
    await once(bare, {}, temp.dir);
    for (let i = 0; i < RUNS; i += 1) {
      for (const variant of VARIANTS) {
        if (variant === 'memtrace_cold') fs.rmSync(coldDir, { recursive: true, force: true });
        if (variant === 'memtrace_cold') {
          fs.mkdirSync(coldDir, { mode: 0o700 });
          buildNativeForwarderInto(coldDir);
          writeContextFile(
            coldDir,
            hooked,
            `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '# memtrace context\n- kept from the last run' } })}\n`,
          );
        }
        const env: Record<string, string> =
          variant === 'no_hooks'
            ? {}
            : { MEMTRACE_DATA_DIR: variant === 'memtrace_cold' ? coldDir : dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' };
        samples[variant].push(await once(variant === 'no_hooks' ? bare : variant === 'memtrace_hooks_only' ? hooksOnly : hooked, env, temp.dir));
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
        VARIANTS.map((v) => [
          v,
          { runs_ms: samples[v].map(Math.round), median_ms: med(samples[v]), vs_no_hooks: Math.round((med(samples[v]) / base) * 100) / 100 },
        ]),
      ),
      target: 'memtrace ≤ 1.05 × no_hooks',
      worker_hooks: health.hooks,
    };
  } finally {
    await worker?.stop();
    worker = null;
    await stopStartedWorker(coldDir);
    temp.cleanup();
  }
}

async function once(projectDir: string, env: Record<string, string>, tempDir: string): Promise<number> {
  const notes = writeBasicProject(projectDir);
  const fake = await startFakeAnthropic({ script: basicScript(notes) });
  const home = fs.mkdtempSync(path.join(tempDir, 'home-'));
  try {
    const result = await runClaudeCode({ projectDir, prompt: BASIC_PROMPT, apiUrl: fake.url, home, env, timeoutMs: 120_000 });
    if (result.exitCode !== 0 || fake.remainingTurns() !== 0)
      throw new Error(`claude exited ${result.exitCode} with ${fake.remainingTurns()} turns left: ${result.stderr}`);
    return result.wallMs;
  } finally {
    await fake.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}
