import type { CompletionUsage } from './types.js';

/** USD per million tokens. List prices at the time of writing; they go stale — override with MEMTRACE_PRICES. */
export interface Price {
  input: number;
  output: number;
}

export const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-sonnet-4-6': { input: 3, output: 15 },
  'claude-opus-4-5': { input: 5, output: 25 },
  'claude-opus-4-7': { input: 5, output: 25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
};

/** An exact id, or a dated id such as `claude-haiku-4-5-20251001`, or a `vendor/` prefixed id. */
function priceFor(model: string, table: Readonly<Record<string, Price>>): Price | null {
  const id = model.toLowerCase().replace(/^[a-z0-9-]+\//, '');
  if (Object.hasOwn(table, id)) return table[id]!;
  const undated = id.replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/, '');
  return Object.hasOwn(table, undated) ? table[undated]! : null;
}

/** Absent is not zero: unknown model or usage gives null. */
export function costFor(model: string, usage: CompletionUsage | null, table: Readonly<Record<string, Price>>): number | null {
  if (!usage) return null;
  const price = priceFor(model, table);
  if (!price) return null;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

/** Input tokens by how the prompt cache treated them, as Anthropic reports them. */
export interface CachedUsage {
  input: number;
  cacheWrite: number;
  cacheRead: number;
  output: number;
}

/** Anthropic's cache pricing: a cache write costs 1.25x the input price, a cache read 0.1x. */
const CACHE_WRITE_FACTOR = 1.25;
const CACHE_READ_FACTOR = 0.1;

/** List-price cost of one call whose prompt was partly cached; null for a model the table does not price. */
export function cachedInputCost(model: string, usage: CachedUsage, table: Readonly<Record<string, Price>>): number | null {
  const price = priceFor(model, table);
  if (!price) return null;
  const input = usage.input + usage.cacheWrite * CACHE_WRITE_FACTOR + usage.cacheRead * CACHE_READ_FACTOR;
  return (input * price.input + usage.output * price.output) / 1_000_000;
}

/** MEMTRACE_PRICES='{"my-model":{"input":1,"output":2}}' adds to or replaces list prices. */
export function pricesFromEnv(raw: string | undefined): { prices: Record<string, Price> } | { error: string } {
  if (raw === undefined || raw.trim() === '') return { prices: { ...DEFAULT_PRICES } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { error: 'MEMTRACE_PRICES is not valid JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { error: 'MEMTRACE_PRICES must be an object of {model: {input, output}}' };
  const prices: Record<string, Price> = { ...DEFAULT_PRICES };
  for (const [model, value] of Object.entries(parsed as Record<string, unknown>)) {
    const p = value as Partial<Price> | null;
    if (!p || typeof p.input !== 'number' || typeof p.output !== 'number' || p.input < 0 || p.output < 0) {
      return { error: `MEMTRACE_PRICES["${model}"] needs non-negative numbers input and output (USD per million tokens)` };
    }
    prices[model.toLowerCase()] = { input: p.input, output: p.output };
  }
  return { prices };
}
