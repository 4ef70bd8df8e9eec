import type { Random } from './prng.js';

/**
 * The facts a simulated fleet is drawn from. Poisoned shares are the legacy fleet's, by model
 * (seed 000: PostHog, 30 days); prices are the providers' list prices in USD per million tokens,
 * so a turn's cost is its tokens times its model's price and cost per observation differs by
 * model as the prices do.
 */
export interface ModelProfile {
  id: string;
  /** Share of installs observing with this model. */
  weight: number;
  provider: 'anthropic' | 'openai';
  usdPerMillionInput: number;
  usdPerMillionOutput: number;
  /** Share of turns the legacy classifier killed as poisoned. */
  poisonedShare: number;
  /** Whether the model keeps to the observation types of the prompt. */
  followsTypes: boolean;
}

export const MODELS: readonly ModelProfile[] = [
  { id: 'haiku', weight: 0.17, provider: 'anthropic', usdPerMillionInput: 0.8, usdPerMillionOutput: 4, poisonedShare: 0.411, followsTypes: true },
  {
    id: 'claude-haiku-4-5-20251001',
    weight: 0.3,
    provider: 'anthropic',
    usdPerMillionInput: 1,
    usdPerMillionOutput: 5,
    poisonedShare: 0.339,
    followsTypes: true,
  },
  { id: 'claude-sonnet-4-5', weight: 0.1, provider: 'anthropic', usdPerMillionInput: 3, usdPerMillionOutput: 15, poisonedShare: 0.177, followsTypes: true },
  { id: 'claude-sonnet-4-6', weight: 0.16, provider: 'anthropic', usdPerMillionInput: 3, usdPerMillionOutput: 15, poisonedShare: 0.096, followsTypes: true },
  { id: 'claude-opus-4-7', weight: 0.05, provider: 'anthropic', usdPerMillionInput: 5, usdPerMillionOutput: 25, poisonedShare: 0.059, followsTypes: true },
  { id: 'gemini-2.5-flash-lite', weight: 0.1, provider: 'openai', usdPerMillionInput: 0.1, usdPerMillionOutput: 0.4, poisonedShare: 0.001, followsTypes: true },
  {
    id: 'openai/gpt-oss-120b:free',
    weight: 0.05,
    provider: 'openai',
    usdPerMillionInput: 0,
    usdPerMillionOutput: 0,
    poisonedShare: 0.001,
    followsTypes: false,
  },
  { id: 'gemini-3-flash-preview', weight: 0.04, provider: 'openai', usdPerMillionInput: 0.5, usdPerMillionOutput: 3, poisonedShare: 0, followsTypes: true },
  { id: 'xiaomi/mimo-v2-flash:free', weight: 0.03, provider: 'openai', usdPerMillionInput: 0, usdPerMillionOutput: 0, poisonedShare: 0, followsTypes: false },
];

/** What one observer call costs at the model's prices. */
export function turnCostUsd(model: ModelProfile, tokensIn: number, tokensOut: number): number {
  return (tokensIn * model.usdPerMillionInput + tokensOut * model.usdPerMillionOutput) / 1e6;
}

/** The tokens of one observer call: the prompt with the tool event, and the reply. */
export function turnTokens(random: Random): { input: number; output: number } {
  const input = 6_000 + Math.floor(random() * 6_000);
  return { input, output: 500 + Math.floor(random() * 900) };
}

/**
 * An adoption curve: the share of installs that have upgraded by (fractional) week `w`, a
 * logistic centred at `midWeek` that rises from 12 % to 88 % over `4 × spreadWeeks`.
 */
export interface AdoptionCurve {
  midWeek: number;
  spreadWeeks: number;
}

export function adoptedShare(curve: AdoptionCurve, week: number): number {
  return 1 / (1 + Math.exp(-(week - curve.midWeek) / curve.spreadWeeks));
}

/** The week an install upgrades, drawn from the curve (inverse CDF); may lie before 0 or past the end. */
export function upgradeWeek(curve: AdoptionCurve, random: Random): number {
  const u = Math.min(1 - 1e-9, Math.max(1e-9, random()));
  return curve.midWeek + curve.spreadWeeks * Math.log(u / (1 - u));
}

/** The legacy releases (13.5.x only set `$app_version`) and memtrace's releases. */
export const LEGACY_VERSIONS = ['13.5.2', '13.6.0'] as const;
export const MEMTRACE_VERSIONS = ['0.1.0', '0.2.0'] as const;

export const TYPE_MIX: Readonly<Record<string, number>> = {
  discovery: 0.27,
  change: 0.2,
  bugfix: 0.18,
  feature: 0.12,
  refactor: 0.08,
  decision: 0.08,
  security: 0.03,
  other: 0.04,
};
export const LOOSE_TYPE_MIX: Readonly<Record<string, number>> = {
  discovery: 0.2,
  change: 0.15,
  bugfix: 0.12,
  feature: 0.1,
  refactor: 0.05,
  decision: 0.05,
  security: 0.01,
  other: 0.32,
};

/** Entries and total per weights object: the simulator draws from the same few mixes millions of times. */
const prepared = new WeakMap<object, { entries: Array<[string, number]>; total: number }>();

export function pickWeighted<T extends string>(random: Random, weights: Readonly<Record<T, number>>): T {
  let p = prepared.get(weights);
  if (p === undefined) {
    const entries = Object.entries(weights) as Array<[string, number]>;
    p = { entries, total: entries.reduce((n, [, w]) => n + w, 0) };
    prepared.set(weights, p);
  }
  const entries = p.entries as Array<[T, number]>;
  let r = random() * p.total;
  for (const [value, w] of entries) {
    r -= w;
    if (r < 0) return value;
  }
  return entries[entries.length - 1]![0];
}
