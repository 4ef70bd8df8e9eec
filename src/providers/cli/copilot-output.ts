import { classifyHttpFailure } from '../errors.js';
import { nonNegativeInt } from '../http-call.js';
import { ProviderError, type CompletionUsage } from '../types.js';
import { jsonLines } from './json-lines.js';

/**
 * What `copilot --output-format json` printed (checked against Copilot CLI 1.0.102): JSONL session
 * events ending in `result` {sessionId, exitCode}. The reply is the last `assistant.message` with
 * content. A failure is `session.error` {errorType, statusCode, message}: memtrace reads its status
 * and type, never the model's text; with no login at all Copilot prints only its fixed
 * `No authentication information found` on stderr. The token counts are not in this output: they come from
 * `--usage-output-file` (`modelMetrics.<model>.usage`), read by `readCopilotUsage`.
 */
export interface CopilotReply {
  text: string;
}

const NO_LOGIN_FORM = /^Error: No authentication information found\./m;
const ERROR_KINDS: Readonly<Record<string, 'auth' | 'quota' | 'rate_limit'>> = { authentication: 'auth', quota: 'quota', rate_limit: 'rate_limit' };

export function readCopilotOutput(stdout: string, stderr: string, exitCode: number | null, nowMs: number): CopilotReply {
  const events = jsonLines(stdout);
  const result = [...events].reverse().find((e) => e.type === 'result');
  const failure = [...events].reverse().find((e) => e.type === 'session.error')?.data as Record<string, unknown> | undefined;
  if (exitCode === 0 && result?.exitCode === 0 && !failure) {
    const message = [...events].reverse().find((e) => e.type === 'assistant.message' && typeof (e.data as { content?: unknown })?.content === 'string');
    return { text: String((message?.data as { content: string } | undefined)?.content ?? '') };
  }
  const status = typeof failure?.statusCode === 'number' ? failure.statusCode : null;
  if (status !== null && status >= 400 && status <= 599) {
    const typed = classifyHttpFailure({ status, body: null, retryAfter: null, nowMs });
    throw new ProviderError(typed.kind, `Copilot CLI: ${typed.message}`, { status });
  }
  if (NO_LOGIN_FORM.test(stderr)) throw new ProviderError('auth', 'Copilot CLI: not logged in (no login it can use)', { detail: 'logged_out' });
  const kind = typeof failure?.errorType === 'string' ? ERROR_KINDS[failure.errorType] : undefined;
  if (kind) throw new ProviderError(kind, `Copilot CLI: ${String(failure!.errorType)}`, { detail: kind === 'auth' ? 'logged_out' : 'usage_limit' });
  throw new ProviderError('transport', `copilot exited ${exitCode ?? 'by a signal'} without a result`, { detail: 'cli_failed' });
}

/** Input and output tokens of every model the call used, from `--usage-output-file`; null when unknown. */
export function readCopilotUsage(text: string | null): { usage: CompletionUsage | null; model: string | null } {
  if (text === null) return { usage: null, model: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { usage: null, model: null };
  }
  const file = value as { modelMetrics?: Record<string, { usage?: Record<string, unknown> }>; currentModel?: unknown };
  let input = 0;
  let output = 0;
  let seen = false;
  for (const metrics of Object.values(file.modelMetrics ?? {})) {
    const inTokens = nonNegativeInt(metrics?.usage?.inputTokens);
    const outTokens = nonNegativeInt(metrics?.usage?.outputTokens);
    if (inTokens === null || outTokens === null) return { usage: null, model: null };
    input += inTokens;
    output += outTokens;
    seen = true;
  }
  return { usage: seen ? { inputTokens: input, outputTokens: output } : null, model: typeof file.currentModel === 'string' ? file.currentModel : null };
}
