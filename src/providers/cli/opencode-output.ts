import { classifyHttpFailure } from '../errors.js';
import { nonNegativeInt } from '../http-call.js';
import { ProviderError, type CompletionUsage } from '../types.js';
import { jsonLines } from './json-lines.js';

/**
 * What `opencode run --format json` printed (checked against OpenCode 1.18.33): one JSON event
 * per line, `step_start`, `text` (`part.text`), `step_finish` (`part.tokens {input, output,
 * reasoning, cache {read, write}}`, `part.cost`), or `error` (`error {name, data}`); a failed
 * API call is `APIError` with `data.statusCode`, `data.responseHeaders` and `data.responseBody`,
 * and the process exits 1. Failures are read from those fields only — the HTTP status, the
 * Retry-After header and the body's structured `error.type` (errors.ts) — never from any text.
 */
export interface OpenCodeReply {
  text: string;
  usage: CompletionUsage | null;
  costUsd: number | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const AUTH_ERRORS = new Set(['ProviderAuthError']);

export function readOpenCodeOutput(stdout: string, exitCode: number | null, nowMs: number): OpenCodeReply {
  const events = jsonLines(stdout);
  const failure = events.find((e) => e.type === 'error');
  if (failure) throw errorOf(isObject(failure.error) ? failure.error : {}, nowMs);
  const texts = events.filter((e) => e.type === 'text' && isObject(e.part) && typeof e.part.text === 'string').map((e) => (e.part as { text: string }).text);
  const finished = events.filter((e) => e.type === 'step_finish' && isObject(e.part));
  if (exitCode !== 0 || finished.length === 0)
    throw new ProviderError('transport', `opencode exited ${exitCode ?? 'by a signal'} without a result`, { detail: 'cli_failed' });
  let input = 0;
  let output = 0;
  let cost = 0;
  let known = true;
  for (const step of finished) {
    const part = step.part as Record<string, unknown>;
    const tokens = isObject(part.tokens) ? part.tokens : {};
    const cache = isObject(tokens.cache) ? tokens.cache : {};
    const i = nonNegativeInt(tokens.input);
    const o = nonNegativeInt(tokens.output);
    if (i === null || o === null) known = false;
    input += (i ?? 0) + (nonNegativeInt(cache.read) ?? 0) + (nonNegativeInt(cache.write) ?? 0);
    output += (o ?? 0) + (nonNegativeInt(tokens.reasoning) ?? 0);
    cost += typeof part.cost === 'number' && Number.isFinite(part.cost) && part.cost >= 0 ? part.cost : 0;
  }
  // OpenCode prices a call from its models catalogue; a model it has no price for costs "0", which is unknown, not free.
  return { text: texts.at(-1) ?? '', usage: known ? { inputTokens: input, outputTokens: output } : null, costUsd: cost > 0 ? cost : null };
}

function errorOf(error: Record<string, unknown>, nowMs: number): ProviderError {
  const data = isObject(error.data) ? error.data : {};
  const name = typeof error.name === 'string' ? error.name : '';
  if (AUTH_ERRORS.has(name)) return new ProviderError('auth', 'OpenCode: the provider has no usable login', { detail: 'logged_out' });
  const status = nonNegativeInt(data.statusCode);
  if (status !== null && status >= 400 && status <= 599) {
    const headers = isObject(data.responseHeaders) ? data.responseHeaders : {};
    const retryAfter = typeof headers['retry-after'] === 'string' ? headers['retry-after'] : null;
    let body: unknown = null;
    try {
      body = typeof data.responseBody === 'string' ? JSON.parse(data.responseBody) : null;
    } catch {
      body = null;
    }
    const typed = classifyHttpFailure({ status, body, retryAfter, nowMs });
    return new ProviderError(typed.kind, `OpenCode: ${typed.message}`, { status, retryAfterMs: typed.retryAfterMs });
  }
  return new ProviderError('transport', `OpenCode reported ${name || 'an error'} without an HTTP status`, { detail: 'cli_failed' });
}
