import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { costFor, DEFAULT_PRICES, type Price } from '../pricing.js';
import { ProviderError, type CompletionRequest, type CompletionResult, type CompletionUsage, type ObserverProvider, type TokenLimits } from '../types.js';
import type { HostCliProviderName } from '../../vocabulary/provider-name.js';
import { observerEnv } from './cli-env.js';
import { runCli, type CliOutcome, type CliRun } from './cli-process.js';
import { makePrivateDir, writePrivateFileAtomic } from '../../data-dir/private-files.js';

/** One call as a host CLI's spec sees it. */
export interface CliCall {
  system: string;
  /** The user turn: every message's content, in order. */
  prompt: string;
  maxOutputTokens: number;
  model: string | null;
  /** The provider's scratch directory under DATA_DIR (the CLI's cwd), kept between calls. */
  scratchDir: string;
  /** This call's own temporary directory (TMPDIR), removed after it. */
  tmpDir: string;
  /** A fresh UUID: the session id a CLI that takes one is given, so its traces can be found. */
  callId: string;
  /** What `setupFacts` learned from the CLI (OpenCode: its MCP servers' names); empty without it. */
  setup: readonly string[];
}

/** What a CLI's parser made of a finished run. */
export interface CliReply {
  text: string;
  usage: CompletionUsage | null;
  /** What the CLI itself reported the call cost, when it does (Claude Code). */
  reportedCostUsd: number | null;
  model: string | null;
}

/** How one host CLI is driven headless and isolated, and how its output is read. */
export interface HostCliSpec {
  name: HostCliProviderName;
  /** The command looked up on PATH: `claude`, `gemini`, `codex`. */
  binary: string;
  /** The observer's model when MEMTRACE_MODEL is unset; null leaves the user's own default. */
  defaultModel: string | null;
  /** Prompt overhead the CLI adds of its own, and whether it enforces the output cap (docs/observer.md#budget). */
  limits: (maxOutputTokens: number) => TokenLimits;
  /** Files the call needs in the scratch dir (settings, instructions), written when they changed. */
  files?(call: CliCall): Array<{ name: string; content: string }>;
  args(call: CliCall): string[];
  /**
   * Arguments that depend on the user's setup, asked of the CLI itself before the call (Codex: turn
   * off each MCP server it would start); cached for a minute.
   */
  setupArgs?(ask: (args: readonly string[]) => Promise<CliOutcome>): Promise<string[]>;
  /** Facts asked of the CLI before the call for `args`/`env` to use (`call.setup`); cached for a minute like setupArgs. */
  setupFacts?(ask: (args: readonly string[]) => Promise<CliOutcome>): Promise<string[]>;
  /** What the CLI reads on stdin: the prompt, unless the CLI takes the instructions there too (Copilot). */
  stdin?(call: CliCall): string;
  /** What the CLI needs in its environment on top of the user's (isolation, limits, TMPDIR). */
  env(call: CliCall): Record<string, string>;
  /** The reply, from the CLI's output (and files it wrote in the call's TMPDIR, before it is removed). */
  read(outcome: Extract<CliOutcome, { kind: 'exited' }>, nowMs: number, call: CliCall): CliReply;
  /** Removes what the CLI left that would read as a session of the user's (Gemini's chat file). */
  afterCall?(call: CliCall, env: Readonly<Record<string, string | undefined>>): void;
}

export interface HostCliConfig {
  /** Where the scratch directories live: DATA_DIR/observer. */
  scratchRoot: string;
  env: Readonly<Record<string, string | undefined>>;
  model?: string;
  timeoutMs: number;
  prices?: Readonly<Record<string, Price>>;
  /** How much to lower the CLI's CPU priority (nice); default 10. */
  niceness?: number;
}

export interface HostCliDeps {
  run?: (run: CliRun) => Promise<CliOutcome>;
  now?: () => number;
}

/**
 * An observer provider that runs an agent host's own CLI headless with the user's login. Every
 * call runs in DATA_DIR/observer/<provider>/ with its own TMPDIR, at lower CPU priority, in its own
 * process group killed on timeout or abort; the spec makes the session run no hooks, MCP servers or
 * tools and leave no session behind. Failures are typed from the CLI's structured output.
 */
export function createHostCliProvider(spec: HostCliSpec, config: HostCliConfig, deps: HostCliDeps = {}): ObserverProvider {
  const run = deps.run ?? runCli;
  const now = deps.now ?? Date.now;
  const model = config.model ?? spec.defaultModel;
  const scratchDir = path.join(config.scratchRoot, spec.name);
  const prices = config.prices ?? DEFAULT_PRICES;
  const cached = new Map<'args' | 'facts', { values: string[]; atMs: number }>();
  const askOnce = async (which: 'args' | 'facts', env: Record<string, string>): Promise<string[]> => {
    const asker = which === 'args' ? spec.setupArgs : spec.setupFacts;
    if (!asker) return [];
    const hit = cached.get(which);
    if (hit && now() - hit.atMs < SETUP_CACHE_MS) return hit.values;
    const values = await asker((ask) => run({ file: spec.binary, args: ask, cwd: scratchDir, env, stdin: '', timeoutMs: SETUP_TIMEOUT_MS, niceness: 10 }));
    cached.set(which, { values, atMs: now() });
    return values;
  };
  const setupArgs = (env: Record<string, string>) => askOnce('args', env);
  return {
    name: spec.name,
    model: model ?? 'default',
    limits: (request) => spec.limits(request.maxOutputTokens),
    async complete(request: CompletionRequest): Promise<CompletionResult> {
      if (request.signal?.aborted) throw request.signal.reason;
      makePrivateDir(scratchDir);
      const tmpDir = fs.mkdtempSync(path.join(scratchDir, 'tmp-'));
      const call: CliCall = {
        system: request.system,
        prompt: request.messages.map((m) => m.content).join('\n\n'),
        maxOutputTokens: request.maxOutputTokens,
        model,
        scratchDir,
        tmpDir,
        callId: crypto.randomUUID(),
        setup: [],
      };
      try {
        for (const file of spec.files?.(call) ?? []) writeIfChanged(path.join(scratchDir, file.name), file.content);
        if (spec.setupFacts) call.setup = await askOnce('facts', observerEnv(config.env, spec.env(call)));
        const env = observerEnv(config.env, spec.env(call));
        const extra = await setupArgs(env);
        const args = spec.args(call);
        const outcome = await run({
          file: spec.binary,
          // Setup arguments are options: they go before the CLI's trailing `-` (read stdin).
          args: args.at(-1) === '-' ? [...args.slice(0, -1), ...extra, '-'] : [...args, ...extra],
          cwd: scratchDir,
          env,
          stdin: spec.stdin?.(call) ?? call.prompt,
          timeoutMs: config.timeoutMs,
          ...(request.signal ? { signal: request.signal } : {}),
          niceness: config.niceness ?? 10,
        });
        if (outcome.kind === 'aborted') throw outcome.reason ?? new Error('aborted');
        if (outcome.kind === 'missing')
          throw new ProviderError('auth', `${spec.binary} was not found on PATH (install it, or set MEMTRACE_PROVIDER)`, { detail: 'cli_missing' });
        if (outcome.kind === 'timed_out')
          throw new ProviderError('transport', `${spec.binary} did not finish within ${config.timeoutMs} ms`, { detail: 'timeout' });
        const reply = spec.read(outcome, now(), call);
        const usedModel = reply.model ?? model ?? 'unknown';
        const estimated = reply.reportedCostUsd === null ? costFor(usedModel, reply.usage, prices) : null;
        return {
          text: reply.text,
          usage: reply.usage,
          costUsd: reply.reportedCostUsd ?? estimated,
          costEstimated: reply.reportedCostUsd === null && estimated !== null,
          model: usedModel,
        };
      } finally {
        try {
          spec.afterCall?.(call, config.env);
        } catch {
          // Best effort: a leftover session file is reported by nothing and harms nothing of ours.
        }
        fs.rmSync(tmpDir, { recursive: true, force: true });
      }
    },
  };
}

const SETUP_CACHE_MS = 60_000;
const SETUP_TIMEOUT_MS = 15_000;

/** Written only when the content differs, atomically (concurrent calls share the scratch dir). */
function writeIfChanged(file: string, content: string): void {
  try {
    if (fs.readFileSync(file, 'utf8') === content) return;
  } catch {
    // Not there yet.
  }
  makePrivateDir(path.dirname(file));
  writePrivateFileAtomic(file, content);
}
