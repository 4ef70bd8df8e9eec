import type { CompactionLevel } from './prompts.js';
import type { Summarize, SummarizeRequest, SummarizerOutcome } from './summarizer.js';
import type { SummaryRejection } from './summary-contract.js';

export type EscalationResult =
  | { kind: 'ok'; level: CompactionLevel; text: string; tokens: number; model: string }
  /** Nothing to store. `outcome` is the last summarizer answer (never ok). */
  | { kind: 'failed'; outcome: Exclude<SummarizerOutcome, { kind: 'ok' }>; levelsTried: CompactionLevel[] };

/**
 * Normal first; aggressive only when normal answered but did not shrink. Every other outcome,
 * and a non-shrinking aggressive answer, fails: there is no third, truncating level.
 */
export async function summarizeWithEscalation(summarize: Summarize, request: Omit<SummarizeRequest, 'level'>): Promise<EscalationResult> {
  const normal = await summarize({ ...request, level: 'normal' });
  if (normal.kind === 'ok') return { kind: 'ok', level: 'normal', text: normal.text, tokens: normal.tokens, model: normal.model };
  if (normal.kind !== 'did_not_shrink') return { kind: 'failed', outcome: normal, levelsTried: ['normal'] };
  const aggressive = await summarize({ ...request, level: 'aggressive' });
  if (aggressive.kind === 'ok') return { kind: 'ok', level: 'aggressive', text: aggressive.text, tokens: aggressive.tokens, model: aggressive.model };
  return { kind: 'failed', outcome: aggressive, levelsTried: ['normal', 'aggressive'] };
}

/** Why nothing was written, as telemetry and the retry policy name it. */
export type SkipReason =
  | 'auth'
  | 'quota'
  | 'rate_limit'
  | 'overloaded'
  | 'transport'
  | 'bad_request'
  | SummaryRejection
  | 'nothing_to_compact'
  | 'stale'
  | 'aborted';

export function skipReasonOf(outcome: Exclude<SummarizerOutcome, { kind: 'ok' }>): SkipReason {
  return outcome.kind === 'provider_error' ? outcome.errorKind : outcome.kind;
}
