import { describe, expect, it } from 'vitest';
import { isKnownModelId, normalizeModelId, scrubProperties } from '../../src/telemetry/index.js';

/** Real model ids as providers, routers and local servers name them: every one must pass as itself. */
const REAL_IDS = [
  'claude-haiku-4-5-20251001', 'claude-haiku-4-5', 'claude-sonnet-4-5', 'claude-sonnet-4-6', 'claude-opus-4-7', 'claude-opus-4-1-20250805',
  'claude-3-5-sonnet-20241022', 'claude-3-5-haiku-20241022', 'claude-3-7-sonnet-latest', 'claude-3-opus-20240229', 'claude-sonnet-4-5@20250929',
  'claude-2.1', 'anthropic.claude-3-5-sonnet-20240620-v1:0', 'anthropic/claude-sonnet-4.5',
  'gpt-4o-mini', 'gpt-4o', 'gpt-4o-2024-08-06', 'gpt-4o-mini-2024-07-18', 'gpt-4-0613', 'gpt-4-1106-preview', 'gpt-4-turbo-2024-04-09',
  'gpt-4-32k-0613', 'gpt-3.5-turbo-0125', 'gpt-3.5-turbo-16k', 'gpt-4.1-nano', 'gpt-4.1-mini-2025-04-14', 'gpt-5', 'gpt-5.1', 'gpt-5-codex',
  'o1-2024-12-17', 'o1-mini', 'o3-mini-high', 'o4-mini', 'openai/gpt-oss-120b:free', 'openai/gpt-oss-20b', 'chatgpt-4o-latest',
  'gemini-2.5-flash-lite', 'gemini-2.5-pro', 'gemini-2.0-flash-001', 'gemini-1.5-pro-002', 'gemini-2.5-flash-preview-05-20',
  'gemini-2.5-flash-preview-09-2025', 'gemini-3-flash-preview', 'google/gemma-3-12b-it:free', 'gemma-3-27b-it',
  'llama-3.1-70b-instruct', 'meta-llama/llama-3.3-70b-instruct', 'meta-llama/llama-3.1-405b-instruct', 'llama-3.2-11b-vision-instruct',
  'llama3.1:8b', 'llama3.2', 'codellama-34b-instruct', 'mistral-large-2411', 'mistral-small-2503', 'mistral-7b-instruct-v0.3',
  'mixtral-8x7b-instruct', 'mixtral-8x22b', 'codestral-2501', 'ministral-8b-2410', 'devstral-small-2505', 'magistral-medium-2506', 'pixtral-12b',
  'qwen/qwen3-coder:free', 'qwen2.5-coder:7b', 'qwen-2.5-72b-instruct', 'qwen3-235b-a22b', 'qwen/qwen3-235b-a22b-2507', 'qwen3-coder-30b-a3b-instruct',
  'qwq-32b', 'deepseek-r1', 'deepseek-v3', 'deepseek/deepseek-chat-v3-0324', 'deepseek-r1-distill-llama-70b', 'deepseek-ai/deepseek-v3.1',
  'grok-4', 'grok-2-1212', 'grok-4-0709', 'x-ai/grok-code-fast-1', 'phi-4', 'phi-3.5-mini-128k-instruct', 'command-r-plus-08-2024',
  'command-r7b-12-2024', 'xiaomi/mimo-v2-flash:free', 'moonshotai/kimi-k2', 'kimi-k2-0905', 'z-ai/glm-4.5-air', 'glm-4.6',
  'nova-pro-v1:0', 'amazon.nova-lite-v1:0', 'jamba-1.5-large', 'nvidia/llama-3.1-nemotron-70b-instruct', 'replay',
];

describe('model id shape', () => {
  it.each(REAL_IDS)('keeps the real id %s', (id) => {
    expect(normalizeModelId(id)).toBe(id);
    expect(scrubProperties('observer_turn_rollup', { top_model: id })?.properties.top_model).toBe(id);
  });

  it.each([
    ['gpt-4-5551-2345-9876', 'a phone number after a version'],
    ['gpt-4-555-234-987', 'three-digit numbers that are no build'],
    ['gpt-4-55-12-34', 'a version of four numbers'],
    ['gpt-4-55-mini-12-34-mini-56', 'three versions'],
    ['gpt-4-123456', 'a six-digit number'],
    ['claude-3-5-20250230', 'February 30th'],
    ['claude-3-5-20251301', 'month 13'],
    ['gpt-4o-2023-02-29', 'a leap day in a common year'],
    ['gpt-4-0230', 'a snapshot on February 30th'],
    ['mistral-large-2413', 'a release in month 13'],
    ['command-r-13-2024', 'month 13 of a year'],
    ['gpt-4-0613-0613', 'two dates'],
    ['claude-99999999', 'eight digits that are no date'],
  ])('maps %s to other (%s), in the schema as well', (id) => {
    expect(normalizeModelId(id)).toBe('other');
    expect(isKnownModelId(id)).toBe(false);
    expect(scrubProperties('observer_turn_rollup', { top_model: id })?.properties).not.toHaveProperty('top_model');
  });

  it('accepts a real leap day', () => {
    expect(normalizeModelId('gpt-4o-2024-02-29')).toBe('gpt-4o-2024-02-29');
  });
});
