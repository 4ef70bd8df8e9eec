import { postJson, nonNegativeInt, type HttpDeps } from './http-call.js';
import { cachedInputCost, DEFAULT_PRICES, type Price } from './pricing.js';
import type { CachedUsage } from './pricing.js';
import type { CompletionRequest, CompletionResult, CompletionUsage, ObserverProvider } from './types.js';

export interface AnthropicConfig {
  apiKey: string;
  baseUrl?: string;
  model?: string;
  timeoutMs?: number;
  prices?: Readonly<Record<string, Price>>;
}

const ANTHROPIC_DEFAULT_MODEL = 'claude-haiku-4-5';

/**
 * Anthropic Messages API (`POST {base}/v1/messages`). The system prompt is the stable prefix of
 * every observer call, so it carries `cache_control`: calls after the first read it from the
 * cache (once it is longer than the model's minimum cacheable prompt; shorter prefixes are simply
 * not cached).
 */
export function createAnthropicProvider(config: AnthropicConfig, deps: HttpDeps = {}): ObserverProvider {
  const baseUrl = (config.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '');
  const model = config.model ?? ANTHROPIC_DEFAULT_MODEL;
  const prices = config.prices ?? DEFAULT_PRICES;
  return {
    name: 'anthropic',
    model,
    async complete(request: CompletionRequest): Promise<CompletionResult> {
      const body = await postJson(
        `${baseUrl}/v1/messages`,
        { 'x-api-key': config.apiKey, 'anthropic-version': '2023-06-01' },
        {
          model,
          max_tokens: request.maxOutputTokens,
          system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
          messages: request.messages,
        },
        { timeoutMs: config.timeoutMs ?? 60_000, ...(request.signal ? { signal: request.signal } : {}) },
        deps,
      );
      const reply = body as { content?: unknown; usage?: Record<string, unknown>; model?: unknown };
      const text = Array.isArray(reply.content)
        ? reply.content
            .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
            .map((part) => part.text)
            .join('')
        : '';
      const read = readUsage(reply.usage);
      const usedModel = typeof reply.model === 'string' && reply.model !== '' ? reply.model : model;
      const costUsd = read ? cachedInputCost(usedModel, read.parts, prices) : null;
      return { text, usage: read?.usage ?? null, costUsd, costEstimated: costUsd !== null, model: usedModel };
    },
  };
}

function readUsage(usage: Record<string, unknown> | undefined): { usage: CompletionUsage; parts: CachedUsage } | null {
  if (!usage) return null;
  const input = nonNegativeInt(usage.input_tokens);
  const output = nonNegativeInt(usage.output_tokens);
  if (input === null || output === null) return null;
  const parts = {
    input,
    cacheWrite: nonNegativeInt(usage.cache_creation_input_tokens) ?? 0,
    cacheRead: nonNegativeInt(usage.cache_read_input_tokens) ?? 0,
    output,
  };
  // Cached prompt tokens are still input the observer read (and count against the daily budget).
  return { usage: { inputTokens: input + parts.cacheWrite + parts.cacheRead, outputTokens: output }, parts };
}
