import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProviderFromEnv, createReplayProvider, ProviderError, ReplayFileError } from '../../src/providers/index.js';
import { costFor, DEFAULT_PRICES } from '../../src/providers/pricing.js';
import { makeTempDir } from '../support/temp-dir.js';

const request = { system: 's', messages: [{ role: 'user' as const, content: 'u' }], maxOutputTokens: 10 };

describe('provider selection', () => {
  it.each([
    [{ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' }, 'anthropic'],
    [{ OPENAI_API_KEY: 'o' }, 'openai'],
    [{}, 'none'],
    [{ MEMTRACE_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }, 'openai'],
  ])('picks a provider from %j', (env, name) => {
    const selected = createProviderFromEnv(env);
    expect('provider' in selected && selected.provider.name).toBe(name);
  });

  it.each([
    [{ MEMTRACE_PROVIDER: 'gemini' }, 'MEMTRACE_PROVIDER=gemini is not one of'],
    [{ MEMTRACE_PROVIDER: 'replay' }, 'needs MEMTRACE_REPLAY_FILE'],
    [{ MEMTRACE_PROVIDER: 'anthropic' }, 'needs ANTHROPIC_API_KEY'],
    [{ MEMTRACE_PRICES: '{' }, 'MEMTRACE_PRICES'],
  ])('names the variable when %j is wrong', (env, message) => {
    const selected = createProviderFromEnv(env);
    expect('error' in selected && selected.error).toContain(message);
  });

  it('keeps messages when no provider is configured: every call is an auth failure', async () => {
    const selected = createProviderFromEnv({});
    if (!('provider' in selected)) throw new Error(selected.error);
    await expect(selected.provider.complete(request)).rejects.toMatchObject({ kind: 'auth' });
  });
});

describe('replay provider', () => {
  it('serves recorded replies in order and starts over', async () => {
    const provider = createReplayProvider({ lines: ['{"text":"a","usage":{"input_tokens":5,"output_tokens":1}}', '', '{"text":"b"}'] });
    const texts = [];
    for (let i = 0; i < 3; i += 1) texts.push((await provider.complete(request)).text);
    expect(texts).toEqual(['a', 'b', 'a']);
  });

  it('replays a recorded failure as a typed error', async () => {
    const provider = createReplayProvider({ lines: ['{"error":{"status":529,"type":"overloaded_error"}}'] });
    const error = await provider.complete(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('overloaded');
  });

  it('names the file and line of a bad JSONL line', () => {
    const temp = makeTempDir();
    const file = path.join(temp.dir, 'r.jsonl');
    fs.writeFileSync(file, '{"text":"ok"}\nnot json\n');
    expect(() => createReplayProvider({ file })).toThrow(ReplayFileError);
    expect(() => createReplayProvider({ file })).toThrow(`${file} line 2: not valid JSON`);
    temp.cleanup();
  });
});

describe('pricing', () => {
  it('matches dated and vendor-prefixed ids, and leaves unknown models unknown', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000 };
    expect(costFor('claude-haiku-4-5-20251001', usage, DEFAULT_PRICES)).toBe(6);
    expect(costFor('anthropic/claude-haiku-4-5', usage, DEFAULT_PRICES)).toBe(6);
    expect(costFor('my-local-llama', usage, DEFAULT_PRICES)).toBeNull();
    expect(costFor('claude-haiku-4-5', null, DEFAULT_PRICES)).toBeNull();
  });
});
