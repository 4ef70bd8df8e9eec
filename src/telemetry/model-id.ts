/**
 * Model ids leave the machine only when every part of them comes from a closed vocabulary:
 * an optional vendor prefix, a known family, then version numbers, dates and a fixed list of
 * size/variant words. Anything else — a private fine-tune, an org name glued to a known
 * family, a path — becomes `other`, which also caps dashboard cardinality. The same check
 * guards PostHog (the schema's pattern) and OpenTelemetry (normalizeModelId).
 */
const VENDORS = ['anthropic', 'openai', 'google', 'meta-llama', 'meta', 'mistralai', 'qwen', 'deepseek', 'deepseek-ai', 'x-ai', 'xai', 'xiaomi', 'moonshotai', 'z-ai', 'zai-org', 'microsoft', 'cohere', 'amazon', 'nvidia', 'minimax', 'ai21'];

const FAMILIES = [
  'claude', 'gpt', 'chatgpt', 'o1', 'o3', 'o4', 'codex', 'gemini', 'gemma', 'llama', 'codellama', 'mistral', 'mixtral', 'codestral',
  'ministral', 'magistral', 'devstral', 'pixtral', 'qwen', 'qwq', 'deepseek', 'grok', 'phi', 'command', 'mimo', 'kimi', 'glm',
  'minimax', 'nova', 'jamba', 'nemotron', 'replay',
];

const VARIANTS = [
  'haiku', 'sonnet', 'opus', 'instant', 'mini', 'nano', 'micro', 'tiny', 'small', 'medium', 'large', 'xl', 'flash', 'pro', 'lite',
  'ultra', 'plus', 'max', 'turbo', 'preview', 'exp', 'experimental', 'latest', 'free', 'beta', 'alpha', 'chat', 'instruct', 'it',
  'coder', 'code', 'vision', 'reasoning', 'reasoner', 'thinking', 'oss', 'audio', 'realtime', 'search', 'base', 'distill', 'online',
  'fast', 'high', 'low', 'nemo', 'r', 'hf', 'fp8', 'int4', 'awq', 'gguf', 'think', 'non', 'omni', 'air',
];

/** Short numbers and versions (4, 2.5, 0613), dates (20241022), sizes (70b, 8x7b, a3b, 128k), v3/r1/k2 and "4o". */
const NUMERIC = String.raw`\d{1,4}(?:\.\d{1,3})*[bkmo]?|20\d{2}(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01])|\d{1,3}x\d{1,4}[bm]|[vrka]\d{1,3}(?:\.\d{1,3})?[bm]?`;

const alternation = (words: readonly string[]) => [...words].sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|');
const SEP = '[-._:@/]';
const TOKEN = `(?:${alternation([...FAMILIES, ...VARIANTS])}|${NUMERIC})`;
/** A family may carry its version glued on (qwen3, llama3.1, phi4). */
const FAMILY = `(?:${alternation(FAMILIES)})(?:\\d{1,3}(?:\\.\\d{1,3})?)?`;

export const MODEL_ID_PATTERN = new RegExp(`^(?:(?:${alternation(VENDORS)})[/.])?${FAMILY}(?:${SEP}${TOKEN})*$`);
export const MODEL_ID_MAX_LENGTH = 80;

export function normalizeModelId(raw: unknown): string {
  if (typeof raw !== 'string') return 'other';
  const id = raw.trim().toLowerCase();
  return id.length <= MODEL_ID_MAX_LENGTH && MODEL_ID_PATTERN.test(id) ? id : 'other';
}
