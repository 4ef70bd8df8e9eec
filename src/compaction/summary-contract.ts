import type { ObserverProvider } from '../providers/types.js';
import { containsMarker } from './markers.js';
import { compactionSystemPrompt } from './prompts.js';

/**
 * The summarizer's output contract, the one rule compaction and `memtrace repair apply` (on
 * memtrace's store and on lossless-claw databases) both store by: a summary is accepted only when
 * it is one. Pure.
 */
export type SummaryRejection =
  | 'empty'
  /** A truncation or fallback marker (markers.ts): the shape of the garbage this exists to replace. */
  | 'marker'
  /** The observer's XML (`<observation>`, a `<summary>` block of its fields): a reply to another prompt. */
  | 'observer_markup'
  /** The prompt given back: its framing, its instructions, or a verbatim excerpt of the input. */
  | 'prompt_echo'
  | 'did_not_shrink';

export type SummaryVerdict = { accepted: true; text: string; tokens: number } | { accepted: false; reason: SummaryRejection; tokens: number | null };

export interface SummarySources {
  /** What the summarizer was given (markers already stripped). */
  text: string;
  /** Its size by the same estimator that measures the candidate. */
  tokens: number;
}

/** A verbatim excerpt of the input at least this long, standing alone, is a copy, not a summary. */
const EXCERPT_MIN_CHARS = 80;

const OBSERVER_BLOCK = /<\/?\s*(?:observation|skip_summary)\b[^>]*>/i;
const OBSERVER_FIELD = /<\/?\s*(?:narrative|facts|concepts|files_read|files_modified|subtitle|next_steps|investigated)\b[^>]*>/i;
/** `<summary>` alone is also HTML (<details>); it is the observer's when it holds the observer's summary fields. */
const OBSERVER_SUMMARY = /<summary\b[^>]*>[\s\S]*<\s*(?:request|learned|completed|notes)\b[^>]*>/i;
const PROMPT_FRAMING = /<\/?input>|Summarize these (?:observations|earlier summaries) \(about \d+ tokens\)/i;
/** The instructions' own sentences; a summary never needs to repeat one. */
const PROMPT_SENTENCES = [...new Set([compactionSystemPrompt('normal'), compactionSystemPrompt('aggressive')].flatMap((p) => p.split('\n')))]
  .map((line) => line.trim())
  .filter((line) => line.length >= 24);

/** What is wrong with a candidate on its face, without its sources; null if nothing. */
export function summaryShapeProblem(candidate: string): Exclude<SummaryRejection, 'did_not_shrink'> | null {
  const text = candidate.trim();
  if (text === '') return 'empty';
  if (containsMarker(text)) return 'marker';
  if (OBSERVER_BLOCK.test(text) || OBSERVER_FIELD.test(text) || OBSERVER_SUMMARY.test(text)) return 'observer_markup';
  if (PROMPT_FRAMING.test(text) || PROMPT_SENTENCES.some((sentence) => text.includes(sentence))) return 'prompt_echo';
  return null;
}

/** The whole contract: on its face, then against its sources (no verbatim copy, strictly shorter). */
export function acceptSummary(candidate: string, sources: SummarySources, estimateTokens: (text: string) => number): SummaryVerdict {
  const text = candidate.trim();
  const problem = summaryShapeProblem(text);
  if (problem) return { accepted: false, reason: problem, tokens: null };
  const flat = collapseSpace(text);
  if (flat.length >= EXCERPT_MIN_CHARS && collapseSpace(sources.text).includes(flat)) return { accepted: false, reason: 'prompt_echo', tokens: null };
  const tokens = estimateTokens(text);
  if (tokens >= sources.tokens) return { accepted: false, reason: 'did_not_shrink', tokens };
  return { accepted: true, text, tokens };
}

/**
 * Why this provider cannot produce a summary at all, as one line, or null when it may. Asked
 * before anything is opened, so a refusal leaves every database as it was.
 */
export function cannotSummarize(provider: Pick<ObserverProvider, 'name' | 'recordedReplies'>): string | null {
  if (provider.name === 'none')
    return 'no provider is configured, so nothing can be summarized. Set ANTHROPIC_API_KEY, OPENAI_API_KEY (or OPENAI_BASE_URL) or MEMTRACE_PROVIDER';
  const replies = provider.recordedReplies;
  if (replies !== undefined && !replies.some((reply) => summaryShapeProblem(reply) === null)) {
    return `the replay provider cannot summarize: none of the ${replies.length} replies in MEMTRACE_REPLAY_FILE is a plain-text summary (observer recordings are not)`;
  }
  return null;
}

function collapseSpace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
