/**
 * The compaction summarizer's prompts (normal and aggressive). Pure. PROMPT_VERSION is stored
 * with every summary so a later prompt change can be traced.
 */
export type CompactionLevel = 'normal' | 'aggressive';
export type SummaryKind = 'leaf' | 'condensed';

export const COMPACTION_PROMPT_VERSION = 'compact-v1';

const COMMON = `You condense the long-term memory of a coding agent working on one software project.
The input is either a run of observations (what the agent did, learned and decided) or a run of
earlier summaries of such observations, oldest first.

Write one plain-text summary that a future session can rely on:
- keep decisions and their reasons, bugs and their fixes, facts about the code, file paths,
  commands, names and identifiers exactly as written;
- drop repetition, narration and anything the later input supersedes;
- keep the order of events where it matters; note dates only when they matter.
Output only the summary: no preamble, no headings about yourself, no closing remarks.
Never write bracketed truncation notes or say that content was cut.`;

const NORMAL = `${COMMON}
Aim for about a third of the input's length.`;

const AGGRESSIVE = `${COMMON}
Be aggressive: an earlier attempt was not shorter than its input. Keep only what changes how
future work is done: decisions, fixes, constraints, open problems. Use terse bullet points.
Aim for at most a fifth of the input's length.`;

export function compactionSystemPrompt(level: CompactionLevel): string {
  return level === 'normal' ? NORMAL : AGGRESSIVE;
}

export function compactionUserMessage(input: { kind: SummaryKind; sourceText: string; sourceTokens: number }): string {
  const what = input.kind === 'leaf' ? 'observations' : 'earlier summaries';
  return `Summarize these ${what} (about ${input.sourceTokens} tokens).\n\n<input>\n${input.sourceText}\n</input>`;
}

/** Room for the answer: enough for the target length, never more than the input. */
export function maxOutputTokensFor(level: CompactionLevel, sourceTokens: number): number {
  const share = level === 'normal' ? 0.5 : 0.25;
  const cap = level === 'normal' ? 1_500 : 800;
  return Math.max(48, Math.min(cap, Math.ceil(sourceTokens * share)));
}
