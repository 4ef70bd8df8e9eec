import { ProviderError, type ProviderErrorKind } from './types.js';

/**
 * The one failure classifier. It reads the HTTP status, the Retry-After header and the
 * structured `error.type` / `error.code` fields of the body — never message text.
 */
export function classifyHttpFailure(input: { status: number; body: unknown; retryAfter: string | null; nowMs: number }): ProviderError {
  const { type, code } = errorFields(input.body);
  const kind = kindFor(input.status, type, code);
  const retryAfterMs = parseRetryAfter(input.retryAfter, input.nowMs);
  return new ProviderError(kind, `provider answered HTTP ${input.status}${type ? ` (${type})` : code ? ` (${code})` : ''}`, {
    status: input.status,
    retryAfterMs,
  });
}

const QUOTA_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached', 'billing_not_active', 'credit_balance_too_low']);

function kindFor(status: number, type: string | null, code: string | null): ProviderErrorKind {
  if ((type && QUOTA_CODES.has(type)) || (code && QUOTA_CODES.has(code))) return 'quota';
  if (type === 'overloaded_error') return 'overloaded';
  if (type === 'rate_limit_error') return 'rate_limit';
  if (type === 'authentication_error' || type === 'permission_error') return 'auth';
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'quota';
  if (status === 429) return 'rate_limit';
  // 529 is Anthropic's "overloaded"; 5xx are the provider's trouble, not the request's.
  if (status === 529 || status >= 500) return 'overloaded';
  if (status === 408) return 'transport';
  return 'bad_request';
}

function errorFields(body: unknown): { type: string | null; code: string | null } {
  if (body === null || typeof body !== 'object') return { type: null, code: null };
  const error = (body as { error?: unknown }).error;
  const source = error !== null && typeof error === 'object' ? (error as Record<string, unknown>) : (body as Record<string, unknown>);
  const str = (v: unknown) => (typeof v === 'string' && v.length <= 64 ? v : typeof v === 'number' ? String(v) : null);
  return { type: str(source.type), code: str(source.code) };
}

/** Retry-After in seconds or as an HTTP date; capped at an hour. */
function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(3_600_000, Math.round(Number(trimmed) * 1000));
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.min(3_600_000, Math.max(0, at - nowMs));
}

export function classifyTransportFailure(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  const name = error instanceof Error ? error.name : 'Error';
  const reason = name === 'TimeoutError' ? 'timed out' : name === 'AbortError' ? 'aborted' : 'could not reach the provider';
  return new ProviderError('transport', `provider call ${reason}`, { cause: error });
}
