import { classifyHttpFailure } from '../errors.js';
import { nonNegativeInt } from '../http-call.js';
import { ProviderError, type CompletionUsage } from '../types.js';
import { jsonLines } from './json-lines.js';

/**
 * What `claude -p --output-format stream-json --verbose` printed, read from its structured lines
 * only (checked against Claude Code 2.1.330): the `result` line (`is_error`, `api_error_status`,
 * `api_error_type`, `api_error`, `usage`, `total_cost_usd`, `modelUsage`), the `system/init` line
 * (`apiKeySource`: `none` when nobody is logged in), `rate_limit_event` (`resetsAt` of a usage
 * limit) and an assistant line's typed `error`. The reply text is the result's `result` field,
 * used only as the observer's reply; no failure is ever read out of it (docs/observer.md).
 */
export interface ClaudeCodeReply {
  text: string;
  usage: CompletionUsage | null;
  costUsd: number | null;
  model: string | null;
}

/** Typed kinds Claude Code puts on an assistant line's `error` that mean the login itself is refused. */
const AUTH_ERRORS = new Set(['authentication_failed', 'oauth_org_not_allowed', 'account_on_hold', 'verification_required']);

export function readClaudeCodeOutput(stdout: string, exitCode: number | null, nowMs: number): ClaudeCodeReply {
  const lines = jsonLines(stdout);
  const result = [...lines].reverse().find((l) => l.type === 'result');
  const init = lines.find((l) => l.type === 'system' && l.subtype === 'init');
  const limit = [...lines].reverse().find((l) => l.type === 'rate_limit_event');
  const assistantError = [...lines].reverse().find((l) => l.type === 'assistant' && typeof l.error === 'string')?.error as string | undefined;
  if (!result) {
    throw new ProviderError('transport', `claude exited ${exitCode ?? 'by a signal'} without a result`, { detail: 'cli_failed' });
  }
  if (result.is_error !== true) {
    return {
      text: typeof result.result === 'string' ? result.result : '',
      usage: readUsage(result.usage),
      costUsd: typeof result.total_cost_usd === 'number' && Number.isFinite(result.total_cost_usd) && result.total_cost_usd >= 0 ? result.total_cost_usd : null,
      model: firstModel(result.modelUsage),
    };
  }
  throw classifyClaudeCodeFailure({
    status: nonNegativeInt(result.api_error_status),
    errorType: typeof result.api_error_type === 'string' ? result.api_error_type : null,
    apiError: typeof result.api_error === 'string' ? result.api_error : (assistantError ?? null),
    apiKeySource: typeof init?.apiKeySource === 'string' ? init.apiKeySource : null,
    resetsAtMs: limit && (limit.rate_limit_info as Record<string, unknown> | undefined)?.status === 'rejected' ? resetMs(limit.rate_limit_info) : null,
    nowMs,
  });
}

/** A failed result's typed fields → the one ProviderError taxonomy. */
function classifyClaudeCodeFailure(f: {
  status: number | null;
  errorType: string | null;
  apiError: string | null;
  apiKeySource: string | null;
  resetsAtMs: number | null;
  nowMs: number;
}): ProviderError {
  const retryAfterMs = f.resetsAtMs === null ? null : Math.max(0, f.resetsAtMs - f.nowMs);
  if (f.apiError === 'usage_limit_reached')
    return new ProviderError('quota', 'Claude Code: usage limit reached', { status: f.status, retryAfterMs, detail: 'usage_limit' });
  if (f.apiError === 'billing_error') return new ProviderError('quota', 'Claude Code: billing error', { status: f.status, detail: 'usage_limit' });
  if (f.apiError !== null && AUTH_ERRORS.has(f.apiError) && f.status === null)
    return new ProviderError('auth', 'Claude Code: not logged in', { detail: f.apiKeySource === 'none' ? 'logged_out' : null });
  if (f.status !== null) {
    const typed = classifyHttpFailure({ status: f.status, body: f.errorType ? { error: { type: f.errorType } } : null, retryAfter: null, nowMs: f.nowMs });
    return new ProviderError(typed.kind, `Claude Code: ${typed.message}`, { status: f.status, retryAfterMs: retryAfterMs ?? typed.retryAfterMs });
  }
  if (f.apiKeySource === 'none') return new ProviderError('auth', 'Claude Code: not logged in', { detail: 'logged_out' });
  if (f.apiError === 'rate_limit') return new ProviderError('rate_limit', 'Claude Code: rate limited', { retryAfterMs });
  if (f.apiError === 'overloaded' || f.apiError === 'server_error') return new ProviderError('overloaded', `Claude Code: ${f.apiError}`);
  if (f.apiError === 'invalid_request' || f.apiError === 'model_not_found' || f.apiError === 'max_output_tokens')
    return new ProviderError('bad_request', `Claude Code: ${f.apiError}`);
  return new ProviderError('transport', `Claude Code failed${f.apiError ? ` (${f.apiError})` : ''}`, { detail: 'cli_failed' });
}

function readUsage(usage: unknown): CompletionUsage | null {
  if (usage === null || typeof usage !== 'object') return null;
  const u = usage as Record<string, unknown>;
  const input = nonNegativeInt(u.input_tokens);
  const output = nonNegativeInt(u.output_tokens);
  if (input === null || output === null) return null;
  const cached = (nonNegativeInt(u.cache_creation_input_tokens) ?? 0) + (nonNegativeInt(u.cache_read_input_tokens) ?? 0);
  return { inputTokens: input + cached, outputTokens: output };
}

function firstModel(modelUsage: unknown): string | null {
  if (modelUsage === null || typeof modelUsage !== 'object') return null;
  const names = Object.keys(modelUsage as Record<string, unknown>);
  return names.length > 0 ? names[0]! : null;
}

function resetMs(info: unknown): number | null {
  const at = (info as Record<string, unknown> | undefined)?.resetsAt;
  return typeof at === 'number' && Number.isFinite(at) && at > 0 ? at * 1000 : null;
}
