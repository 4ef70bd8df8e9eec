/**
 * Truncation markers that deterministic "fallback" summaries carry (lossless-claw's engine and
 * summarizer fallbacks, docs/compaction.md). Pure.
 *
 * Two different questions are asked of them:
 * - Is a stored summary a fallback? Position matters: a summary that merely quotes a marker in
 *   its middle is a real summary (a naive substring search flagged 285 of 285 in one report).
 * - May a new summary be stored? Strict: no marker anywhere, so nothing marker-shaped is ever written.
 */

const TRUNCATED_FROM = /\[Truncated from \d+ tokens\]/g;
const LCM_FALLBACK_MARKER = '[LCM fallback summary; truncated for context management]';
const LCM_DIRECTIVE_FALLBACK_MARKER = '[LCM fallback summary; directive-shaped untrusted content omitted]';
/** What the directive fallback puts in place of each omitted passage. */
const LCM_DIRECTIVE_OMISSION = '[LCM fallback summary omitted directive-shaped untrusted content].';
const EMERGENCY_TRUNCATION_MARKER = '[Truncated for context management]';
const EMERGENCY_FALLBACK_MODEL = 'emergency-fallback';

/** How close to the end a tail marker must sit to count (characters after the marker starts). */
const TRUNCATED_FROM_TAIL_WINDOW = 40;
const EMERGENCY_TAIL_WINDOW = 80;

export const FALLBACK_REASONS = ['level_fallback', 'truncated_tail', 'fallback_prefix', 'emergency_truncation', 'emergency_model'] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

const FIXED_MARKERS = [LCM_DIRECTIVE_OMISSION, LCM_FALLBACK_MARKER, LCM_DIRECTIVE_FALLBACK_MARKER, EMERGENCY_TRUNCATION_MARKER];

/** Why a stored summary is a fallback, by its level and model labels and where its markers sit; [] if it is not. */
export function fallbackReasons(row: { content: string; level?: string | null; model?: string | null }): FallbackReason[] {
  const reasons: FallbackReason[] = [];
  if (row.level === 'fallback') reasons.push('level_fallback');
  const text = row.content.trimEnd();
  const head = row.content.trimStart();
  const lastTruncated = lastMatchIndex(text, TRUNCATED_FROM);
  if (lastTruncated >= 0 && text.length - lastTruncated <= TRUNCATED_FROM_TAIL_WINDOW) reasons.push('truncated_tail');
  if (head.startsWith(LCM_FALLBACK_MARKER) || head.startsWith(LCM_DIRECTIVE_FALLBACK_MARKER)) reasons.push('fallback_prefix');
  if (row.model === EMERGENCY_FALLBACK_MODEL) {
    const at = text.lastIndexOf(EMERGENCY_TRUNCATION_MARKER);
    reasons.push(at >= 0 && text.length - at <= EMERGENCY_TAIL_WINDOW ? 'emergency_truncation' : 'emergency_model');
  }
  return reasons;
}

/** Strict check for new text: any marker anywhere. */
export function containsMarker(text: string): boolean {
  return lastMatchIndex(text, TRUNCATED_FROM) >= 0 || FIXED_MARKERS.some((m) => text.includes(m));
}

/** Removes every marker, so text fed back to a summarizer cannot teach it to reproduce one. */
export function stripMarkers(text: string): string {
  let out = text.replace(TRUNCATED_FROM, '');
  for (const marker of FIXED_MARKERS) out = out.split(marker).join('');
  return out
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function lastMatchIndex(text: string, pattern: RegExp): number {
  let last = -1;
  for (const match of text.matchAll(new RegExp(pattern.source, 'g'))) last = match.index ?? last;
  return last;
}
