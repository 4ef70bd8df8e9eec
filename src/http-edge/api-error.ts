import type { ZodIssue } from 'zod';

/** The one error body shape of the HTTP API: `{"error":{"code","message","field"}}`. */
export interface ApiErrorBody {
  error: { code: string; message: string; field: string | null };
}

export function apiError(code: string, message: string, field: string | null = null): ApiErrorBody {
  return { error: { code, message, field } };
}

/** Names the first offending field so a hook author can fix the call at once. */
export function fromZodIssues(issues: readonly ZodIssue[]): ApiErrorBody {
  const issue = issues[0];
  if (!issue) return apiError('invalid_body', 'the request body is not valid');
  const field = issue.path.length > 0 ? issue.path.join('.') : null;
  const missing = (issue.code === 'invalid_type' && issue.received === 'undefined') || issue.message === 'is required';
  return apiError(missing ? 'missing_field' : 'invalid_field', field ? `${field}: ${missing ? 'is required' : issue.message}` : issue.message, field);
}
