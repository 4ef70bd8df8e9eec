import { createAnthropicProvider } from './anthropic.js';
import { createOpenAICompatibleProvider } from './openai-compatible.js';
import { pricesFromEnv } from './pricing.js';
import { createReplayProvider, ReplayFileError } from './replay.js';
import { ProviderError, type ObserverProvider } from './types.js';
import type { HttpDeps } from './http-call.js';
import { DEFAULT_PROVIDER_TIMEOUT_MS, parseProviderTimeout } from '../config.js';

const NAMES = ['anthropic', 'openai', 'replay', 'none'] as const;

/** docs/interfaces.md#observer-provider: MEMTRACE_PROVIDER, else anthropic with ANTHROPIC_API_KEY, else openai with OPENAI_API_KEY, else none. */
export function createProviderFromEnv(env: Record<string, string | undefined>, deps: HttpDeps = {}): { provider: ObserverProvider } | { error: string } {
  const explicit = env.MEMTRACE_PROVIDER?.trim();
  const name = explicit ? explicit : env.ANTHROPIC_API_KEY ? 'anthropic' : env.OPENAI_API_KEY ? 'openai' : 'none';
  if (!(NAMES as readonly string[]).includes(name)) return { error: `MEMTRACE_PROVIDER=${name} is not one of ${NAMES.join('|')}` };
  const prices = pricesFromEnv(env.MEMTRACE_PRICES);
  if ('error' in prices) return prices;
  const model = env.MEMTRACE_MODEL?.trim() || undefined;
  const timeout = parseProviderTimeout(env.MEMTRACE_PROVIDER_TIMEOUT_MS);
  if (typeof timeout === 'string') return { error: timeout };
  const timeoutMs = timeout ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  switch (name) {
    case 'anthropic':
      if (!env.ANTHROPIC_API_KEY) return { error: 'MEMTRACE_PROVIDER=anthropic needs ANTHROPIC_API_KEY' };
      return {
        provider: createAnthropicProvider(
          {
            apiKey: env.ANTHROPIC_API_KEY,
            ...(env.ANTHROPIC_BASE_URL ? { baseUrl: env.ANTHROPIC_BASE_URL } : {}),
            ...(model ? { model } : {}),
            prices: prices.prices,
            timeoutMs,
          },
          deps,
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
            prices: prices.prices,
            timeoutMs,
          },
          deps,
        ),
      };
    case 'replay':
      if (!env.MEMTRACE_REPLAY_FILE) return { error: 'MEMTRACE_PROVIDER=replay needs MEMTRACE_REPLAY_FILE' };
      try {
        return { provider: createReplayProvider({ file: env.MEMTRACE_REPLAY_FILE, ...(model ? { model } : {}) }) };
      } catch (error) {
        if (error instanceof ReplayFileError) return { error: error.message };
        throw error;
      }
    default:
      return { provider: noProvider() };
  }
}

/** Without a provider, events are kept until one is configured; nothing calls this one (canObserve). */
export function noProvider(): ObserverProvider {
  return {
    name: 'none',
    model: 'none',
    complete: async () => {
      throw new ProviderError('auth', 'no observer provider configured (set ANTHROPIC_API_KEY, OPENAI_API_KEY or MEMTRACE_PROVIDER=replay)');
    },
  };
}
