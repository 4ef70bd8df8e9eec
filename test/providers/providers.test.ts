import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicProvider, createOpenAICompatibleProvider, ProviderError } from '../../src/providers/index.js';
import type { ObserverProvider } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';

const request = { system: 'sys', messages: [{ role: 'user' as const, content: 'hi' }], maxOutputTokens: 100 };

async function failureOf(provider: ObserverProvider): Promise<ProviderError> {
  try {
    await provider.complete(request);
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe.each(['anthropic', 'openai'] as const)('%s client over real HTTP', (wire) => {
  let fake: FakeLlm;
  let provider: ObserverProvider;
  const providerWithin = (timeoutMs: number) =>
    wire === 'anthropic'
      ? createAnthropicProvider({ apiKey: 'sk-test', baseUrl: fake.url, model: 'claude-haiku-4-5', timeoutMs })
      : createOpenAICompatibleProvider({ apiKey: 'sk-test', baseUrl: fake.url, model: 'gpt-4o-mini', timeoutMs });
  beforeAll(async () => {
    fake = await startFakeLlm(wire);
    // Generous: with 500 ms, a call meant to succeed (the file's first, which also loads fetch's
    // HTTP client) was cut off on a loaded machine; only the timeout test wants a short one.
    provider = providerWithin(10_000);
  });
  afterAll(() => fake.close());

  it('returns the text, usage and a list-price cost', async () => {
    fake.push({ kind: 'text', text: '<observation/>', usage: { input: 1_000_000, output: 0 } });
    const result = await provider.complete(request);
    expect(result.text).toBe('<observation/>');
    expect(result.usage).toEqual({ inputTokens: 1_000_000, outputTokens: 0 });
    expect(result.costUsd).toBe(wire === 'anthropic' ? 1 : 0.15);
    expect(result.costEstimated).toBe(true);
    const sent = fake.requests.at(-1)!;
    if (wire === 'anthropic') {
      expect(sent.headers['x-api-key']).toBe('sk-test');
      // The system prompt is every call's stable prefix: marked for Anthropic's prompt cache.
      expect(sent.body).toMatchObject({ system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }], max_tokens: 100 });
    } else {
      expect(sent.headers.authorization).toBe('Bearer sk-test');
      expect(sent.body.messages[0]).toEqual({ role: 'system', content: 'sys' });
    }
  });

  it('leaves usage and cost unknown when the provider reports none', async () => {
    fake.push({ kind: 'text', text: 'x', usage: null });
    const result = await provider.complete(request);
    expect(result.usage).toBeNull();
    expect(result.costUsd).toBeNull();
  });

  it.each([
    [401, undefined, 'auth'],
    [403, undefined, 'auth'],
    [402, undefined, 'quota'],
    [429, undefined, 'rate_limit'],
    [529, 'overloaded_error', 'overloaded'],
    [503, undefined, 'overloaded'],
    [500, undefined, 'overloaded'],
    [400, 'invalid_request_error', 'bad_request'],
  ] as const)('maps HTTP %i to %s', async (status, errorType, kind) => {
    fake.push({ kind: 'status', status, ...(errorType ? { errorType } : {}) });
    const error = await failureOf(provider);
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
  });

  it('reads Retry-After', async () => {
    fake.push({ kind: 'status', status: 429, headers: { 'retry-after': '7' } });
    expect((await failureOf(provider)).retryAfterMs).toBe(7_000);
  });

  it('treats a timeout as transport', async () => {
    fake.push({ kind: 'delay', ms: 2_000, reply: { kind: 'text', text: 'late' } });
    expect((await failureOf(providerWithin(300))).kind).toBe('transport');
  });

  it('never reads failure out of assistant text', async () => {
    fake.push({ kind: 'text', text: 'rate limit exceeded, quota exhausted, overloaded' });
    expect((await provider.complete(request)).text).toContain('rate limit');
  });

  it('treats a 2xx that is not JSON as retryable', async () => {
    fake.push({ kind: 'garbage' });
    expect((await failureOf(provider)).kind).toBe('overloaded');
  });
});

describe('openai-compatible specifics', () => {
  it('uses the cost OpenRouter reports', async () => {
    const fake = await startFakeLlm('openai');
    try {
      fake.push({ kind: 'text', text: 'x', usage: { input: 10, output: 10 }, costUsd: 0.0123 });
      const provider = createOpenAICompatibleProvider({ apiKey: 'k', baseUrl: fake.url, model: 'openai/gpt-oss-120b:free' });
      expect((await provider.complete(request)).costUsd).toBe(0.0123);
    } finally {
      await fake.close();
    }
  });

  it('maps insufficient_quota on a 429 to quota', async () => {
    const fake = await startFakeLlm('openai');
    try {
      fake.push({ kind: 'status', status: 429, errorType: 'insufficient_quota', errorCode: 'insufficient_quota' });
      const provider = createOpenAICompatibleProvider({ apiKey: 'k', baseUrl: fake.url });
      expect((await failureOf(provider)).kind).toBe('quota');
    } finally {
      await fake.close();
    }
  });

  it('calls a refused connection transport', async () => {
    const provider = createOpenAICompatibleProvider({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 1_000 });
    expect((await failureOf(provider)).kind).toBe('transport');
  });
});
