/**
 * Model ids leave the machine only in a known shape: a known family name, an optional vendor
 * prefix and tag. Anything else — a private fine-tune, a path, a project name — becomes
 * `other`, which also caps the cardinality of dashboards.
 */
const FAMILY = '(?:claude|gpt|o[134]|gemini|gemma|llama|meta-llama|mistral|mixtral|codestral|qwen|qwq|deepseek|grok|phi|command-r|gpt-oss|mimo|kimi|glm|replay)';
const VENDOR = '(?:(?:openai|anthropic|google|meta-llama|mistralai|qwen|deepseek|x-ai|xiaomi|moonshotai|z-ai|microsoft|cohere)/)?';
export const MODEL_ID_PATTERN = new RegExp(`^${VENDOR}${FAMILY}(?:[-.][a-z0-9.]+)*(?::(?:free|latest|beta|[0-9]+b))?$`);
export const MODEL_ID_MAX_LENGTH = 80;

export function normalizeModelId(raw: unknown): string {
  if (typeof raw !== 'string') return 'other';
  const id = raw.trim().toLowerCase();
  return id.length <= MODEL_ID_MAX_LENGTH && MODEL_ID_PATTERN.test(id) ? id : 'other';
}
