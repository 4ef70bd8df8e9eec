import fs from 'node:fs';
import path from 'node:path';
import { startFakeAnthropic } from '../test/support/fake-anthropic.js';
import { claudeUnavailableReason, claudeVersion, runClaudeCode } from '../test/support/claude-code.js';
import { basicScript, BASIC_PROMPT, writeBasicProject } from '../test/support/claude-code-scenario.js';
import { readRecordedHooks, recordingHooks, writeProjectSettings } from '../test/support/hook-settings.js';
import { makeTempDir } from '../test/support/temp-dir.js';

export const name = 'claude-code-hooks';

type Variant = 'no_hooks' | 'sync_hooks' | 'async_tool_hooks';
const VARIANTS: Variant[] = ['no_hooks', 'sync_hooks', 'async_tool_hooks'];
const RUNS = 3;

/**
 * Wall time of the real Claude Code CLI running the scripted 4-tool session offline: without hooks,
 * with the recording command hook (a bare node process) on every event, and with the tool hooks async.
 * Runs are interleaved after one discarded warm-up so drift hits every variant alike.
 */
export async function run(): Promise<Record<string, unknown>> {
  const unavailable = claudeUnavailableReason();
  if (unavailable) return { skipped: unavailable };
  const samples: Record<Variant, number[]> = { no_hooks: [], sync_hooks: [], async_tool_hooks: [] };
  const hookCalls: Record<Variant, number[]> = { no_hooks: [], sync_hooks: [], async_tool_hooks: [] };
  let sandboxed = false;
  await once('no_hooks');
  for (let i = 0; i < RUNS; i += 1) {
    for (const variant of VARIANTS) {
      const { wallMs, hooks, inSandbox } = await once(variant);
      samples[variant].push(wallMs);
      hookCalls[variant].push(hooks);
      sandboxed = inSandbox;
    }
  }
  const round = (x: number) => Math.round(x);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = median(samples.no_hooks);
  const figures = Object.fromEntries(
    VARIANTS.map((v) => [v, { runs_ms: samples[v].map(round), median_ms: round(median(samples[v])), vs_no_hooks: Math.round((median(samples[v]) / base) * 100) / 100, hook_calls: hookCalls[v] }]),
  );
  return { claude: claudeVersion(), sandboxed, session: '4 tool calls (Bash ok, Read, Edit, Bash exit 3) + final text', ...figures };
}

async function once(variant: Variant): Promise<{ wallMs: number; hooks: number; inSandbox: boolean }> {
  const temp = makeTempDir('memtrace-bench-cc-');
  const projectDir = path.join(temp.dir, 'project');
  fs.mkdirSync(projectDir);
  const hookLog = path.join(temp.dir, 'hooks.jsonl');
  writeProjectSettings(projectDir, variant === 'no_hooks' ? undefined : recordingHooks({ outFile: hookLog, asyncToolHooks: variant === 'async_tool_hooks' }));
  const fake = await startFakeAnthropic({ script: basicScript(writeBasicProject(projectDir)) });
  try {
    const result = await runClaudeCode({ projectDir, prompt: BASIC_PROMPT, apiUrl: fake.url, home: path.join(temp.dir, 'home'), timeoutMs: 120_000 });
    if (result.exitCode !== 0 || fake.remainingTurns() !== 0) throw new Error(`${variant}: claude exited ${result.exitCode} with ${fake.remainingTurns()} turns left: ${result.stderr}`);
    return { wallMs: result.wallMs, hooks: readRecordedHooks(hookLog).length, inSandbox: result.sandboxed };
  } finally {
    await fake.close();
    temp.cleanup();
  }
}
