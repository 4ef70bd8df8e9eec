import { classifyHttpFailure } from '../errors.js';
import { nonNegativeInt } from '../http-call.js';
import { ProviderError, type CompletionUsage } from '../types.js';

/**
 * What `gemini -p --output-format json` printed (checked against Gemini CLI 0.61.0): one JSON
 * object, `{session_id, response, stats}` on stdout, or `{session_id, error: {type, message, code}}`
 * on stderr (after any warnings) with the process exiting non-zero. `error.code` is the API's HTTP
 * status, or the CLI's own exit code (41: no usable login). Failures are read from those fields
 * and the exit code only.
 */
export interface GeminiReply {
  sessionId: string | null;
  text: string;
  usage: CompletionUsage | null;
  model: string | null;
}

/** Gemini CLI's exit code when no login or key is usable (FatalAuthenticationError). */
const EXIT_AUTH = 41;
/** Invalid settings (FatalConfigError): someone has to fix the CLI's configuration. */
const EXIT_CONFIG = 52;
/** Bad input, turn limit: this request would fail the same way again. */
const EXIT_REQUEST = new Set([42, 53]);

export function readGeminiOutput(stdout: string, stderr: string, exitCode: number | null, nowMs: number): GeminiReply {
  const out = lastJsonObject(stdout);
  if (exitCode === 0 && out && typeof out.response === 'string' && out.error === undefined) {
    const usage = readStats(out.stats);
    return {
      sessionId: typeof out.session_id === 'string' ? out.session_id : null,
      text: out.response,
      usage: usage?.usage ?? null,
      model: usage?.model ?? null,
    };
  }
  const failure = (out?.error !== undefined ? out : lastJsonObject(stderr)) ?? null;
  const error = failure?.error as Record<string, unknown> | undefined;
  const code = nonNegativeInt(error?.code);
  if (exitCode === EXIT_AUTH || code === EXIT_AUTH) return fail(new ProviderError('auth', 'Gemini CLI: no usable login', { detail: 'logged_out' }));
  if (exitCode === EXIT_CONFIG || code === EXIT_CONFIG)
    return fail(new ProviderError('auth', 'Gemini CLI: its configuration is invalid', { detail: 'cli_failed' }));
  if (code !== null && code >= 400 && code <= 599) {
    const typed = classifyHttpFailure({ status: code, body: null, retryAfter: null, nowMs });
    return fail(new ProviderError(typed.kind, `Gemini CLI: ${typed.message}`, { status: code }));
  }
  if ((exitCode !== null && EXIT_REQUEST.has(exitCode)) || (code !== null && EXIT_REQUEST.has(code)))
    return fail(new ProviderError('bad_request', `Gemini CLI refused the request (exit ${exitCode ?? code})`));
  return fail(new ProviderError('transport', `gemini exited ${exitCode ?? 'by a signal'} without a result`, { detail: 'cli_failed' }));
}

function fail(error: ProviderError): never {
  throw error;
}

/** Token counts summed over every model the call used (`stats.models.<model>.tokens`). */
function readStats(stats: unknown): { usage: CompletionUsage | null; model: string | null } | null {
  const models = (stats as { models?: unknown } | null)?.models;
  if (models === null || typeof models !== 'object') return null;
  let input = 0;
  let output = 0;
  let known = false;
  let model: string | null = null;
  for (const [name, entry] of Object.entries(models as Record<string, unknown>)) {
    const tokens = (entry as { tokens?: Record<string, unknown> } | null)?.tokens;
    if (!tokens) continue;
    const prompt = nonNegativeInt(tokens.prompt) ?? nonNegativeInt(tokens.input);
    const candidates = nonNegativeInt(tokens.candidates);
    if (prompt === null || candidates === null) continue;
    known = true;
    model ??= name;
    input += prompt;
    // Thinking is generated output, billed and counted as such.
    output += candidates + (nonNegativeInt(tokens.thoughts) ?? 0);
  }
  return { usage: known ? { inputTokens: input, outputTokens: output } : null, model };
}

/** The last complete JSON object in a stream that may hold warnings or a stack trace before it. */
function lastJsonObject(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  // A pretty-printed object starts on a line of its own: try each such start from the end.
  const starts: number[] = [];
  for (let i = trimmed.indexOf('{'); i !== -1; i = trimmed.indexOf('{', i + 1)) if (i === 0 || trimmed[i - 1] === '\n') starts.push(i);
  for (const start of starts.reverse()) {
    try {
      const value = JSON.parse(trimmed.slice(start)) as unknown;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // Not the start of the final object.
    }
  }
  return null;
}
