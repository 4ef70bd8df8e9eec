import { isSpacelessWord } from '../store/spaceless-scripts.js';

/**
 * A short excerpt of a result around the first place it matches the query. Pure. The index is
 * contentless (the text lives once, in its table), so the excerpt is cut here from the row's own
 * text rather than by FTS5's snippet(). A word matches when it starts with the query word's first
 * letters (a rough twin of the index's stemming and prefix matching); a word of a script written
 * without spaces matches anywhere, as the index finds it inside a run.
 */
const SNIPPET_CHARS = 160;
const STEM_CHARS = 5;

/** Where a query word first occurs in lower-cased text, or -1. */
type Matcher = (lower: string) => number;

function matcher(word: string): Matcher {
  if (isSpacelessWord(word)) {
    const needle = word.toLowerCase();
    return (lower) => lower.indexOf(needle);
  }
  const stem = word.slice(0, Math.min(word.length, STEM_CHARS));
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'u');
  return (lower) => pattern.exec(lower)?.index ?? -1;
}

function firstMatch(text: string, matchers: readonly Matcher[]): number {
  const lower = text.toLowerCase();
  let best = -1;
  for (const find of matchers) {
    const at = find(lower);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}

/**
 * Excerpts for one query: the first of `fields` that matches, cut to about SNIPPET_CHARS around
 * the match; else the first non-empty field's start. The words' patterns are made once per query.
 */
export function snippetsFor(words: readonly string[], width = SNIPPET_CHARS): (fields: readonly string[]) => string {
  const matchers = words.map(matcher);
  return (fields) => {
    const flat = fields.map((f) => f.replace(/\s+/g, ' ').trim()).filter((f) => f !== '');
    for (const text of flat) {
      const at = firstMatch(text, matchers);
      if (at < 0) continue;
      const start = Math.max(0, Math.min(at - Math.floor(width / 4), text.length - width));
      const end = Math.min(text.length, start + width);
      return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`;
    }
    const first = flat[0] ?? '';
    return first.length > width ? `${first.slice(0, width).trim()}…` : first;
  };
}
