import { numbersAreVersionsAndDates } from './model-id-numbers.js';

/**
 * Model ids leave the machine only when every part of them comes from a closed vocabulary:
 * an optional vendor prefix, a known family, then versions, dates, sizes and a fixed list of
 * variant words. Anything else — a private fine-tune, an org name glued to a known family, a
 * path, a phone number dressed as a version — becomes `other`, which also caps dashboard
 * cardinality. The same check guards PostHog (the schema's field) and OpenTelemetry (normalizeModelId).
 */
const VENDORS = [
  'anthropic',
  'openai',
  'google',
  'meta-llama',
  'meta',
  'mistralai',
  'qwen',
  'deepseek',
  'deepseek-ai',
  'x-ai',
  'xai',
  'xiaomi',
  'moonshotai',
  'z-ai',
  'zai-org',
  'microsoft',
  'cohere',
  'amazon',
  'nvidia',
  'minimax',
  'ai21',
];

const MODEL_FAMILIES = [
  'claude',
  'gpt',
  'chatgpt',
  'o1',
  'o3',
  'o4',
  'codex',
  'gemini',
  'gemma',
  'llama',
  'codellama',
  'mistral',
  'mixtral',
  'codestral',
  'ministral',
  'magistral',
  'devstral',
  'pixtral',
  'qwen',
  'qwq',
  'deepseek',
  'grok',
  'phi',
  'command',
  'mimo',
  'kimi',
  'glm',
  'minimax',
  'nova',
  'jamba',
  'nemotron',
  'replay',
] as const;

const VARIANTS = [
  'haiku',
  'sonnet',
  'opus',
  'instant',
  'mini',
  'nano',
  'micro',
  'tiny',
  'small',
  'medium',
  'large',
  'xl',
  'flash',
  'pro',
  'lite',
  'ultra',
  'plus',
  'max',
  'turbo',
  'preview',
  'exp',
  'experimental',
  'latest',
  'free',
  'beta',
  'alpha',
  'chat',
  'instruct',
  'it',
  'coder',
  'code',
  'vision',
  'reasoning',
  'reasoner',
  'thinking',
  'oss',
  'audio',
  'realtime',
  'search',
  'base',
  'distill',
  'online',
  'fast',
  'high',
  'low',
  'nemo',
  'r',
  'hf',
  'fp8',
  'int4',
  'awq',
  'gguf',
  'think',
  'non',
  'omni',
  'air',
];

/**
 * The numeric tokens, lexically: plain numbers (versions, builds, dates — which ones are real is
 * decided by numbersAreVersionsAndDates), sizes (70b, 8x7b, a3b, 128k), "4o", and v3/r1/k2.
 */
const NUMERIC = String.raw`\d{1,8}|\d{1,3}[bkm]|\d{1,2}o|\d{1,3}x\d{1,4}[bm]|[vrka]\d{1,3}[bm]?`;

const alternation = (words: readonly string[]) =>
  [...words]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
    .join('|');
const SEP = '[-._:@/]';
const TOKEN = `(?:${alternation([...MODEL_FAMILIES, ...VARIANTS])}|${NUMERIC})`;
/** A family may carry its version glued on (qwen3, llama3.1, phi4). */
const FAMILY = `(?:${alternation(MODEL_FAMILIES)})(?:\\d{1,3})?`;
const WORDS: ReadonlySet<string> = new Set([...MODEL_FAMILIES, ...VARIANTS]);
const VENDOR_PREFIX = new RegExp(`^(?:${alternation(VENDORS)})[/.]`);

/** The vocabulary: which words and token shapes may appear, in which order. */
export const MODEL_ID_PATTERN = new RegExp(`^(?:(?:${alternation(VENDORS)})[/.])?${FAMILY}(?:${SEP}${TOKEN})*$`);
export const MODEL_ID_MAX_LENGTH = 80;

/** Vocabulary and numbers both: a version is at most two short numbers, a date is a real date. */
export function isKnownModelId(id: string): boolean {
  if (id.length > MODEL_ID_MAX_LENGTH || !MODEL_ID_PATTERN.test(id)) return false;
  return numbersAreVersionsAndDates(id.replace(VENDOR_PREFIX, '').split(/[-._:@/]/), { families: MODEL_FAMILIES, words: WORDS });
}

export function normalizeModelId(raw: unknown): string {
  if (typeof raw !== 'string') return 'other';
  const id = raw.trim().toLowerCase();
  return isKnownModelId(id) ? id : 'other';
}
