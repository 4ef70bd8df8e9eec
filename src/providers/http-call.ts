import { classifyHttpFailure, classifyTransportFailure } from './errors.js';
import { ProviderError } from './types.js';

export interface HttpDeps {
  fetch?: typeof fetch;
  now?: () => number;
}

/** POSTs JSON and returns the parsed JSON body of a 2xx reply; every failure is a ProviderError. */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  options: { timeoutMs: number; signal?: AbortSignal },
  deps: HttpDeps,
): Promise<unknown> {
  const doFetch = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
  let response: Response;
  let text: string;
  try {
    response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.any(signals),
    });
    text = await response.text();
  } catch (error) {
    throw classifyTransportFailure(error);
  }
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  if (!response.ok) {
    throw classifyHttpFailure({ status: response.status, body: json, retryAfter: response.headers.get('retry-after'), nowMs: now() });
  }
  if (json === null || typeof json !== 'object') {
    // A 2xx with a body we cannot read is the provider's fault; try again later.
    throw new ProviderError('overloaded', 'provider sent a 2xx reply that is not JSON', { status: response.status });
  }
  return json;
}

export function nonNegativeInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
}
