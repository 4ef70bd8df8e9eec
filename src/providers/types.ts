/** The observer's view of an LLM: one completion call with typed failures. */

import type { ProviderName } from '../vocabulary/provider-name.js';

/** Decided from HTTP status and structured error bodies only, never from assistant text. */
export const PROVIDER_ERROR_KINDS = ['auth', 'quota', 'rate_limit', 'overloaded', 'transport', 'bad_request'] as const;
export type ProviderErrorKind = (typeof PROVIDER_ERROR_KINDS)[number];

/**
 * What a host CLI told us beyond the kind, from its structured output (never from model text):
 * what `worker status` says to the user.
 */
export const PROVIDER_ERROR_DETAILS = ['cli_missing', 'logged_out', 'usage_limit', 'cli_failed', 'timeout'] as const;
export type ProviderErrorDetail = (typeof PROVIDER_ERROR_DETAILS)[number];

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status: number | null;
  /** From a Retry-After header (or a CLI's structured reset time) when the provider sent one. */
  readonly retryAfterMs: number | null;
  readonly detail: ProviderErrorDetail | null;

  constructor(
    kind: ProviderErrorKind,
    message: string,
    options: { status?: number | null; retryAfterMs?: number | null; detail?: ProviderErrorDetail | null; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = options.status ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.detail = options.detail ?? null;
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
  /** Who the call is for, for the spend ledger (providers ignore it); compaction's calls carry none. */
  spend?: { purpose: 'observe' | 'compact'; sessionId: string | null; events: number };
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
  /** True when `costUsd` comes from the price table, not from the provider (or the CLI) itself. */
  costEstimated?: boolean;
  /** The model id the provider reports having used (falls back to the requested one). */
  model: string;
}

/**
 * What bounds one call's tokens before it is made; the daily budget reserves the bound
 * (docs/observer.md#budget). A prompt of B UTF-8 bytes is at most B tokens (every token of a
 * byte-level tokenizer covers at least one byte), plus the provider's own overhead, plus the output.
 */
export interface TokenLimits {
  /** Tokens the provider adds to the prompt it is given (message framing, a CLI's own instructions), at most. */
  overheadTokens: number;
  /** The reply's cap. */
  outputTokens: number;
  /** False when the provider does not enforce the cap (then it is an estimate, and the bound is too). */
  outputEnforced: boolean;
}

export interface ObserverProvider {
  readonly name: ProviderName;
  readonly model: string;
  /** This provider's token bounds for a request; without it: framing overhead and the request's enforced output cap. */
  limits?(request: Pick<CompletionRequest, 'maxOutputTokens'>): TokenLimits;
  /**
   * Replay only: the texts it will answer with, in order. A caller can see up front whether any of
   * them fits its output contract (observer recordings are not summaries).
   */
  readonly recordedReplies?: readonly string[];
  complete(request: CompletionRequest): Promise<CompletionResult>;
}
