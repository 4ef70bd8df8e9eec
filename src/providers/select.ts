import os from 'node:os';
import { createAnthropicProvider } from './anthropic.js';
import { createOpenAICompatibleProvider } from './openai-compatible.js';
import { pricesFromEnv, type Price } from './pricing.js';
import { createReplayProvider, ReplayFileError } from './replay.js';
import { ProviderError, type ObserverProvider } from './types.js';
import type { HttpDeps } from './http-call.js';
import { dataDirFromEnv, DEFAULT_PROVIDER_TIMEOUT_MS, parseProviderTimeout } from '../config.js';
import { HOST_CLI_PROVIDERS, PROVIDER_NAMES, type HostCliProviderName } from '../vocabulary/provider-name.js';
import { createHostCliProvider, type HostCliDeps, type HostCliSpec } from './cli/host-cli-provider.js';
import { CLAUDE_CODE_CLI } from './cli/claude-code.js';
import { GEMINI_CLI } from './cli/gemini-cli.js';
import { CODEX_CLI } from './cli/codex.js';
import { COPILOT_CLI } from './cli/copilot.js';
import { OPENCODE_CLI } from './cli/opencode.js';
import { PI_CLI } from './cli/pi.js';
import { findOnPath } from './cli/which.js';
import { observerScratchRoot } from '../data-dir/observer-scratch.js';

const SELECTABLE = PROVIDER_NAMES;
const HOST_CLI_SPECS: Readonly<Record<HostCliProviderName, HostCliSpec>> = {
  'claude-code': CLAUDE_CODE_CLI,
  'gemini-cli': GEMINI_CLI,
  codex: CODEX_CLI,
  opencode: OPENCODE_CLI,
  copilot: COPILOT_CLI,
  pi: PI_CLI,
};

/**
 * Copilot CLI observes in a COPILOT_HOME of its own (cli/copilot.ts: the user's hooks would run
 * in every call, and each call would be saved and indexed as a session of theirs). A login kept in
 * the environment works there; one stored by `copilot login` may not. So by default it observes
 * only with such a login; MEMTRACE_PROVIDER=copilot chooses it regardless.
 */
const COPILOT_LOGIN_ENV = ['COPILOT_PROVIDER_BASE_URL', 'COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'] as const;
const copilotLoginInEnv = (env: Record<string, string | undefined>) => COPILOT_LOGIN_ENV.some((name) => Boolean(env[name]?.trim()));
const COPILOT_NOT_DEFAULT = `Copilot CLI observes by default only with a login in the environment (${COPILOT_LOGIN_ENV.join(', ')}): otherwise it cannot be kept from running your hooks and saving every call as a session of yours; MEMTRACE_PROVIDER=copilot uses it anyway`;

/**
 * The observer the worker runs, and why (docs/observer.md#which-observer-runs). Sessions of
 * several hosts: with MEMTRACE_PROVIDER or a key, one provider observes them all; otherwise each
 * batch goes to the CLI of its own session's host (its `platform`; a session that names none is
 * Claude Code's, the default host of `memtrace hook` and the HTTP API) when that CLI is on PATH.
 * A session whose host's CLI is missing is not observed: its events wait, like provider `none`.
 */
export interface ObserverChoice {
  /** The observer of a session of this platform; null when nothing observes it. */
  forPlatform(platform: string | null): ObserverProvider | null;
  /** What compaction, `repair` and `worker_started` use: the Claude Code CLI first in host mode. */
  primary: ObserverProvider;
  /** Every provider that may be called. */
  providers: readonly ObserverProvider[];
  /** `observer: …` for this host's sessions: which observer runs and why, on one line. */
  describe(platform?: string | null): string;
  /** Looks again at what the choice was made from (live-choice.ts); the new line when it changed. */
  refresh?(nowMs: number): string | null;
}

export interface ChoiceOptions {
  /** DATA_DIR: the host CLIs run in DATA_DIR/observer/<provider>/. */
  dataDir: string;
  /** Finds a binary on PATH (tests pass their own). */
  findBinary?: (name: string) => string | null;
  http?: HttpDeps;
  cli?: HostCliDeps;
}

/** MEMTRACE_PROVIDER wins; else an API key; else the host CLIs on PATH; else none. */
export function chooseObserver(env: Record<string, string | undefined>, options: ChoiceOptions): { choice: ObserverChoice } | { error: string } {
  const explicit = env.MEMTRACE_PROVIDER?.trim();
  if (explicit && !(SELECTABLE as readonly string[]).includes(explicit))
    return { error: `MEMTRACE_PROVIDER=${explicit} is not one of ${SELECTABLE.join('|')}` };
  const prices = pricesFromEnv(env.MEMTRACE_PRICES);
  if ('error' in prices) return prices;
  const model = env.MEMTRACE_MODEL?.trim() || undefined;
  const timeout = parseProviderTimeout(env.MEMTRACE_PROVIDER_TIMEOUT_MS);
  if (typeof timeout === 'string') return { error: timeout };
  const settings: Settings = { env, model, prices: prices.prices, timeoutMs: timeout ?? DEFAULT_PROVIDER_TIMEOUT_MS, options };
  const find = options.findBinary ?? ((name: string) => findOnPath(name, env.PATH));

  if (explicit) {
    const made = makeNamed(explicit as (typeof SELECTABLE)[number], settings);
    if ('error' in made) return made;
    return { choice: single(made.provider, `MEMTRACE_PROVIDER=${explicit}${cliNote(made.provider, find)}`) };
  }
  if (env.ANTHROPIC_API_KEY) return singleOrError(makeNamed('anthropic', settings), 'ANTHROPIC_API_KEY is set');
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL)
    return singleOrError(makeNamed('openai', settings), `${env.OPENAI_API_KEY ? 'OPENAI_API_KEY' : 'OPENAI_BASE_URL'} is set`);

  const onPath = HOST_CLI_PROVIDERS.filter((name) => find(HOST_CLI_SPECS[name].binary) !== null);
  const found = onPath.filter((name) => name !== 'copilot' || copilotLoginInEnv(env));
  if (found.length === 0)
    return {
      choice: single(
        noProvider(),
        onPath.includes('copilot')
          ? `no API key is set and no other agent CLI is on PATH; ${COPILOT_NOT_DEFAULT}`
          : `no API key is set and no agent CLI (${HOST_CLI_PROVIDERS.map((n) => HOST_CLI_SPECS[n].binary).join(', ')}) is on PATH`,
      ),
    };
  const byHost = new Map<HostCliProviderName, ObserverProvider>(found.map((name) => [name, makeCli(name, settings)]));
  const hostOf = (platform: string | null): HostCliProviderName =>
    platform !== null && (HOST_CLI_PROVIDERS as readonly string[]).includes(platform) ? (platform as HostCliProviderName) : 'claude-code';
  const primary = byHost.get('claude-code') ?? byHost.values().next().value!;
  return {
    choice: {
      forPlatform: (platform) => byHost.get(hostOf(platform)) ?? null,
      primary,
      providers: [...byHost.values()],
      describe(platform) {
        if (platform === undefined) {
          const list = HOST_CLI_PROVIDERS.map(
            (name) => `${name} ${byHost.has(name) ? 'found' : onPath.includes(name) ? 'found, not used without a login in the environment' : 'not found'}`,
          ).join(', ');
          return `observer: each session’s own agent CLI, with your own login (${list}) — no API key is set`;
        }
        const host = hostOf(platform);
        const provider = byHost.get(host);
        if (!provider && host === 'copilot' && onPath.includes('copilot'))
          return `observer: none for copilot sessions — no API key is set; ${COPILOT_NOT_DEFAULT}; events are stored, not observed`;
        return provider
          ? `observer: ${host} (${provider.model}) — no API key is set; ${HOST_CLI_SPECS[host].binary} is on PATH and observes with your own login`
          : `observer: none for ${host} sessions — no API key is set and ${HOST_CLI_SPECS[host].binary} is not on PATH; events are stored, not observed`;
      },
    },
  };
}

/**
 * Which agent CLIs are on PATH now, when the environment leaves the choice to them (no key; no
 * MEMTRACE_PROVIDER, or one naming an agent CLI); null when a key or another provider decides,
 * so nothing a running worker can see would change the choice.
 */
export function hostClisDeciding(env: Record<string, string | undefined>, options: Pick<ChoiceOptions, 'findBinary'>): HostCliProviderName[] | null {
  const explicit = env.MEMTRACE_PROVIDER?.trim();
  const followsPath = explicit
    ? (HOST_CLI_PROVIDERS as readonly string[]).includes(explicit)
    : !env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL;
  if (!followsPath) return null;
  const find = options.findBinary ?? ((name: string) => findOnPath(name, env.PATH));
  return HOST_CLI_PROVIDERS.filter((name) => find(HOST_CLI_SPECS[name].binary) !== null);
}

/** The one provider the environment selects (the primary of chooseObserver): `memtrace repair`, tests. */
export function createProviderFromEnv(
  env: Record<string, string | undefined>,
  options: Partial<ChoiceOptions> = {},
): { provider: ObserverProvider } | { error: string } {
  // The data dir the worker uses, so the host CLI's scratch dir is the one intake and mining leave alone.
  const chosen = chooseObserver(env, { dataDir: options.dataDir ?? dataDirFromEnv(env, env.HOME ?? os.homedir()), ...options });
  return 'error' in chosen ? chosen : { provider: chosen.choice.primary };
}

interface Settings {
  env: Record<string, string | undefined>;
  model: string | undefined;
  prices: Record<string, Price>;
  timeoutMs: number;
  options: ChoiceOptions;
}

/** One provider for every session (a key, MEMTRACE_PROVIDER, or a test's own provider). */
export function single(provider: ObserverProvider, why: string): ObserverChoice {
  const observing = provider.name !== 'none';
  const line = observing ? `observer: ${provider.name} (${provider.model}) — ${why}` : `observer: none — ${why}; events are stored, not observed`;
  return { forPlatform: () => (observing ? provider : null), primary: provider, providers: observing ? [provider] : [], describe: () => line };
}

function singleOrError(made: { provider: ObserverProvider } | { error: string }, why: string): { choice: ObserverChoice } | { error: string } {
  return 'error' in made ? made : { choice: single(made.provider, why) };
}

function cliNote(provider: ObserverProvider, find: (name: string) => string | null): string {
  if (!(HOST_CLI_PROVIDERS as readonly string[]).includes(provider.name)) return '';
  const binary = HOST_CLI_SPECS[provider.name as HostCliProviderName].binary;
  return find(binary) ? `, with your own login (${binary})` : ` — but ${binary} is not on PATH: calls wait until it is installed`;
}

function makeCli(name: HostCliProviderName, s: Settings): ObserverProvider {
  return createHostCliProvider(
    HOST_CLI_SPECS[name],
    { scratchRoot: observerScratchRoot(s.options.dataDir), env: s.env, timeoutMs: s.timeoutMs, prices: s.prices, ...(s.model ? { model: s.model } : {}) },
    s.options.cli ?? {},
  );
}

function makeNamed(name: (typeof SELECTABLE)[number], s: Settings): { provider: ObserverProvider } | { error: string } {
  const { env, model, prices, timeoutMs } = s;
  switch (name) {
    case 'anthropic':
      if (!env.ANTHROPIC_API_KEY) return { error: 'MEMTRACE_PROVIDER=anthropic needs ANTHROPIC_API_KEY' };
      return {
        provider: createAnthropicProvider(
          {
            apiKey: env.ANTHROPIC_API_KEY,
            ...(env.ANTHROPIC_BASE_URL ? { baseUrl: env.ANTHROPIC_BASE_URL } : {}),
            ...(model ? { model } : {}),
            prices,
            timeoutMs,
          },
          s.options.http ?? {},
        ),
      };
    case 'openai':
      // Local servers (Ollama, vLLM) take no key, so only a base URL or a key is needed.
      if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) return { error: 'MEMTRACE_PROVIDER=openai needs OPENAI_API_KEY or OPENAI_BASE_URL' };
      return {
        provider: createOpenAICompatibleProvider(
          {
            apiKey: env.OPENAI_API_KEY ?? '',
            ...(env.OPENAI_BASE_URL ? { baseUrl: env.OPENAI_BASE_URL } : {}),
            ...(model ? { model } : {}),
            prices,
            timeoutMs,
          },
          s.options.http ?? {},
        ),
      };
    case 'claude-code':
    case 'gemini-cli':
    case 'codex':
    case 'opencode':
    case 'copilot':
    case 'pi':
      return { provider: makeCli(name, s) };
    case 'replay':
      if (!env.MEMTRACE_REPLAY_FILE) return { error: 'MEMTRACE_PROVIDER=replay needs MEMTRACE_REPLAY_FILE' };
      try {
        return { provider: createReplayProvider({ file: env.MEMTRACE_REPLAY_FILE, ...(model ? { model } : {}) }) };
      } catch (error) {
        if (error instanceof ReplayFileError) return { error: error.message };
        throw error;
      }
    case 'none':
      return { provider: noProvider() };
  }
}

/** Without a provider, events are kept until one is configured; nothing calls this one (the loop claims nothing when no provider observes). */
export function noProvider(): ObserverProvider {
  return {
    name: 'none',
    model: 'none',
    complete: async () => {
      throw new ProviderError(
        'auth',
        'no observer provider configured (set ANTHROPIC_API_KEY, OPENAI_API_KEY, install an agent CLI, or MEMTRACE_PROVIDER=replay)',
      );
    },
  };
}
