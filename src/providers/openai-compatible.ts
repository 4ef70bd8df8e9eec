import { postJson, nonNegativeInt, type HttpDeps } from './http-call.js';
import { costFor, DEFAULT_PRICES, type Price } from './pricing.js';
import type { CompletionRequest, CompletionResult, CompletionUsage, ObserverProvider } from './types.js';

export interface OpenAICompatibleConfig {
  apiKey: string;
  baseUrl?: string;
  model?: string;
  timeoutMs?: number;
  prices?: Readonly<Record<string, Price>>;
}

const OPENAI_DEFAULT_MODEL = 'gpt-4o-mini';

/** Chat completions as spoken by OpenAI, OpenRouter, Ollama, vLLM and Gemini's compatible API. */
export function createOpenAICompatibleProvider(config: OpenAICompatibleConfig, deps: HttpDeps = {}): ObserverProvider {
  const baseUrl = (config.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const model = config.model ?? OPENAI_DEFAULT_MODEL;
  const prices = config.prices ?? DEFAULT_PRICES;
  return {
    name: 'openai',
    model,
    async complete(request: CompletionRequest): Promise<CompletionResult> {
      const body = await postJson(
        `${baseUrl}/chat/completions`,
        config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
        {
          model,
          max_tokens: request.maxOutputTokens,
          messages: [{ role: 'system', content: request.system }, ...request.messages],
        },
        { timeoutMs: config.timeoutMs ?? 60_000, ...(request.signal ? { signal: request.signal } : {}) },
        deps,
      );
      const reply = body as { choices?: Array<{ message?: { content?: unknown } }>; usage?: Record<string, unknown>; model?: unknown };
      const usage = readUsage(reply.usage);
      const usedModel = typeof reply.model === 'string' && reply.model !== '' ? reply.model : model;
      // OpenRouter reports what the call really cost; prefer it over a list price.
      const reported = typeof reply.usage?.cost === 'number' && Number.isFinite(reply.usage.cost) && reply.usage.cost >= 0 ? reply.usage.cost : null;
      const costUsd = reported ?? costFor(usedModel, usage, prices);
      return {
        text: readText(reply.choices?.[0]?.message?.content),
        usage,
        costUsd,
        costEstimated: reported === null && costUsd !== null,
        model: usedModel,
      };
    },
  };
}

function readText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

function readUsage(usage: Record<string, unknown> | undefined): CompletionUsage | null {
  if (!usage) return null;
  const input = nonNegativeInt(usage.prompt_tokens);
  const output = nonNegativeInt(usage.completion_tokens);
  return input === null || output === null ? null : { inputTokens: input, outputTokens: output };
}
