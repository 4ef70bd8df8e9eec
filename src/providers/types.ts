/** The observer's view of an LLM: one completion call with typed failures. */

import type { ProviderName } from '../vocabulary/provider-name.js';

/** Decided from HTTP status and structured error bodies only, never from assistant text. */
export const PROVIDER_ERROR_KINDS = ['auth', 'quota', 'rate_limit', 'overloaded', 'transport', 'bad_request'] as const;
export type ProviderErrorKind = (typeof PROVIDER_ERROR_KINDS)[number];

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status: number | null;
  /** From a Retry-After header when the provider sent one. */
  readonly retryAfterMs: number | null;

  constructor(kind: ProviderErrorKind, message: string, options: { status?: number | null; retryAfterMs?: number | null; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = options.status ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  system: string;
  messages: ChatMessage[];
  maxOutputTokens: number;
  signal?: AbortSignal;
}

/** Absent is not zero: unknown usage or cost is null, never 0. */
export interface CompletionUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface CompletionResult {
  text: string;
  usage: CompletionUsage | null;
  costUsd: number | null;
  /** The model id the provider reports having used (falls back to the requested one). */
  model: string;
}

export interface ObserverProvider {
  readonly name: ProviderName;
  readonly model: string;
  /**
   * Replay only: the texts it will answer with, in order. A caller can see up front whether any of
   * them fits its output contract (observer recordings are not summaries).
   */
  readonly recordedReplies?: readonly string[];
  complete(request: CompletionRequest): Promise<CompletionResult>;
}

/**
 * `none` (no key configured, the default a new user gets) means "store events, observe nothing":
 * it is not a failing provider, so nothing calls it, waits on it or warns about it. Events stay
 * queued and are observed once a provider is configured and the worker restarted.
 */
export function canObserve(provider: Pick<ObserverProvider, 'name'>): boolean {
  return provider.name !== 'none';
}
