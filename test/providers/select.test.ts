import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseObserver, createProviderFromEnv, createReplayProvider, ProviderError, ReplayFileError } from '../../src/providers/index.js';
import { cachedInputCost, costFor, DEFAULT_PRICES } from '../../src/providers/pricing.js';
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

  const found =
    (...names: string[]) =>
    (name: string) =>
      names.includes(name) ? `/usr/bin/${name}` : null;
  const choose = (env: Record<string, string>, onPath: (name: string) => string | null) => {
    const chosen = chooseObserver(env, { dataDir: '/home/u/.memtrace', findBinary: onPath });
    if ('error' in chosen) throw new Error(chosen.error);
    return chosen.choice;
  };

  it('without a key, observes each session with its own host’s CLI when it is on PATH; a session naming no host is Claude Code’s', () => {
    const choice = choose({}, found('claude', 'codex'));
    expect(choice.forPlatform('claude-code')?.name).toBe('claude-code');
    expect(choice.forPlatform(null)?.name).toBe('claude-code');
    expect(choice.forPlatform('codex')?.name).toBe('codex');
    expect(choice.forPlatform('gemini-cli')).toBeNull();
    expect(choice.primary.name).toBe('claude-code');
    expect(choice.describe('claude-code')).toBe('observer: claude-code (haiku) — no API key is set; claude is on PATH and observes with your own login');
    expect(choice.describe('gemini-cli')).toMatch(/^observer: none for gemini-cli sessions — no API key is set and gemini is not on PATH/);
    expect(choice.describe()).toBe(
      'observer: each session’s own agent CLI, with your own login (claude-code found, gemini-cli not found, codex found, opencode not found, copilot not found, pi not found) — no API key is set',
    );
  });

  it('observes Copilot sessions with the Copilot CLI only when its login is in the environment (else says why), or when MEMTRACE_PROVIDER names it', () => {
    const stored = choose({}, found('copilot'));
    expect(stored.forPlatform('copilot')).toBeNull();
    expect(stored.describe('copilot')).toMatch(
      /^observer: none — no API key is set and no other agent CLI is on PATH; Copilot CLI observes by default only with a login in the environment \(COPILOT_PROVIDER_BASE_URL, COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN\): otherwise it cannot be kept from running your hooks/,
    );
    const withClaude = choose({}, found('claude', 'copilot'));
    expect(withClaude.forPlatform('copilot')).toBeNull();
    expect(withClaude.describe('copilot')).toMatch(
      /^observer: none for copilot sessions — no API key is set; Copilot CLI observes by default only with a login in the environment/,
    );
    expect(withClaude.describe()).toContain('copilot found, not used without a login in the environment');
    for (const env of [{ GH_TOKEN: 'gho_x' }, { COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:1/v1' }] as Array<Record<string, string>>) {
      const choice = choose(env, found('copilot'));
      expect(choice.forPlatform('copilot')?.name).toBe('copilot');
      expect(choice.describe('copilot')).toBe('observer: copilot (default) — no API key is set; copilot is on PATH and observes with your own login');
    }
    expect(choose({ MEMTRACE_PROVIDER: 'copilot' }, found('copilot')).forPlatform('claude-code')?.name).toBe('copilot');
  });

  it('keeps the order: MEMTRACE_PROVIDER, then an API key, then the host CLIs, then none', () => {
    const cli = found('claude', 'gemini', 'codex');
    expect(choose({ MEMTRACE_PROVIDER: 'gemini-cli', ANTHROPIC_API_KEY: 'a' }, cli).forPlatform('claude-code')?.name).toBe('gemini-cli');
    expect(choose({ ANTHROPIC_API_KEY: 'a' }, cli).forPlatform('codex')?.name).toBe('anthropic');
    expect(choose({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }, cli).describe()).toBe('observer: openai (gpt-4o-mini) — OPENAI_BASE_URL is set');
    const none = choose({}, found());
    expect(none.forPlatform('claude-code')).toBeNull();
    expect(none.describe()).toBe(
      'observer: none — no API key is set and no agent CLI (claude, gemini, codex, opencode, copilot, pi) is on PATH; events are stored, not observed',
    );
  });

  it('observes OpenCode and pi sessions with their own CLIs, and takes them by name', () => {
    const choice = choose({}, found('opencode', 'pi'));
    expect(choice.forPlatform('opencode')?.name).toBe('opencode');
    expect(choice.forPlatform('pi')?.name).toBe('pi');
    expect(choice.forPlatform('claude-code')).toBeNull();
    expect(choice.describe('pi')).toBe('observer: pi (default) — no API key is set; pi is on PATH and observes with your own login');
    expect(choose({ MEMTRACE_PROVIDER: 'opencode', MEMTRACE_MODEL: 'anthropic/claude-haiku-4-5' }, found('opencode')).describe()).toBe(
      'observer: opencode (anthropic/claude-haiku-4-5) — MEMTRACE_PROVIDER=opencode, with your own login (opencode)',
    );
  });

  it('says when MEMTRACE_PROVIDER names a CLI that is not on PATH (its calls then wait, typed cli_missing)', () => {
    expect(choose({ MEMTRACE_PROVIDER: 'codex' }, found()).describe()).toBe(
      'observer: codex (default) — MEMTRACE_PROVIDER=codex — but codex is not on PATH: calls wait until it is installed',
    );
    expect(choose({ MEMTRACE_PROVIDER: 'claude-code', MEMTRACE_MODEL: 'sonnet' }, found('claude')).describe()).toBe(
      'observer: claude-code (sonnet) — MEMTRACE_PROVIDER=claude-code, with your own login (claude)',
    );
  });

  it.each([
    [{ MEMTRACE_PROVIDER: 'gemini' }, 'MEMTRACE_PROVIDER=gemini is not one of anthropic|openai|claude-code|gemini-cli|codex|opencode|copilot|pi|replay|none'],
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

  it('prices Anthropic’s prompt cache: a write at 1.25x the input price, a read at 0.1x', () => {
    const usage = { input: 1_000_000, cacheWrite: 1_000_000, cacheRead: 1_000_000, output: 1_000_000 };
    expect(cachedInputCost('claude-haiku-4-5', usage, DEFAULT_PRICES)).toBeCloseTo(1 + 1.25 + 0.1 + 5, 10);
    expect(cachedInputCost('my-local-llama', usage, DEFAULT_PRICES)).toBeNull();
  });
});
