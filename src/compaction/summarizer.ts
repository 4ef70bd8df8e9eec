import { ProviderError, type ObserverProvider, type ProviderErrorKind } from '../providers/types.js';
import { redactTextInto } from '../redaction/index.js';
import { acceptSummary, type SummaryRejection } from './summary-contract.js';
import { compactionSystemPrompt, compactionUserMessage, maxOutputTokensFor, type CompactionLevel, type SummaryKind } from './prompts.js';

/** One summarizer call, typed: the caller never receives a string to store unless it is `ok`. */
export type SummarizerOutcome =
  | { kind: 'ok'; text: string; tokens: number; model: string }
  | { kind: 'provider_error'; errorKind: ProviderErrorKind; retryAfterMs: number | null; message: string }
  /** The answer broke the output contract (summary-contract.ts): never stored. */
  | { kind: Exclude<SummaryRejection, 'did_not_shrink'> }
  /** Not shorter than its sources: the one rejection that is worth a second, aggressive try. */
  | { kind: 'did_not_shrink'; tokens: number }
  /** Cut short by shutdown: nothing happened, nothing to retry for. */
  | { kind: 'aborted' };

export interface SummarizeRequest {
  kind: SummaryKind;
  level: CompactionLevel;
  /** Already stripped of truncation markers. */
  sourceText: string;
  /** The input's size by the same estimator that measures the output. */
  sourceTokens: number;
  signal?: AbortSignal;
}

export type Summarize = (request: SummarizeRequest) => Promise<SummarizerOutcome>;

/** Binds a provider and a token estimator into a typed summarizer. */
export function createSummarizer(provider: Pick<ObserverProvider, 'complete'>, estimateTokens: (text: string) => number): Summarize {
  return async (request) => {
    let text: string;
    let model: string;
    try {
      const result = await provider.complete({
        system: compactionSystemPrompt(request.level),
        // A guard like the observer's: memory an older version stored may still hold a secret.
        messages: [{ role: 'user', content: redactTextInto(compactionUserMessage(request), {}) }],
        maxOutputTokens: maxOutputTokensFor(request.level, request.sourceTokens),
        ...(request.signal ? { signal: request.signal } : {}),
      });
      text = result.text.trim();
      model = result.model;
    } catch (error) {
      if (request.signal?.aborted) return { kind: 'aborted' };
      if (error instanceof ProviderError) return { kind: 'provider_error', errorKind: error.kind, retryAfterMs: error.retryAfterMs, message: error.message };
      // Not a provider answer (a bug or an odd runtime failure): treat as transport so it is retried, never stored.
      return { kind: 'provider_error', errorKind: 'transport', retryAfterMs: null, message: error instanceof Error ? error.message : String(error) };
    }
    const verdict = acceptSummary(text, { text: request.sourceText, tokens: request.sourceTokens }, estimateTokens);
    if (verdict.accepted) return { kind: 'ok', text: verdict.text, tokens: verdict.tokens, model };
    if (verdict.reason === 'did_not_shrink') return { kind: 'did_not_shrink', tokens: verdict.tokens ?? request.sourceTokens };
    return { kind: verdict.reason };
  };
}
