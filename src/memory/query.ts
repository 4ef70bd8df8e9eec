import { identifierParts } from '../store/search-text.js';

/**
 * Turns whatever a user typed into an FTS5 query that cannot fail. Pure.
 *
 * Only runs of letters and digits are kept, and each becomes a quoted FTS5 string, so `"`, `(`,
 * `*`, `AND`, `NEAR(` and friends are searched as words (or dropped as punctuation), never parsed
 * as syntax. Words are OR-ed: bm25 ranks a row higher the more of them it holds, so a question
 * asked in other words than the title still finds it by the words it shares. Common English
 * words are dropped when anything else is left; camelCase identifiers also search their parts;
 * longer words match as prefixes of the (porter-stemmed) index terms.
 */
export type SearchQuery = { ok: true; match: string; words: string[] } | { ok: false; reason: string };

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** Enough words for any real question; a pasted page is cut here. */
const MAX_WORDS = 32;
/** Words this long or longer also match index terms they begin (after stemming). */
const PREFIX_MIN_LENGTH = 4;

const STOPWORDS = new Set(
  (
    'a about after again all also am an and any are as at be been before being between both but by can could did do does doing done during each ' +
    'for from further get got had has have having he her here hers him his how i if in into is it its itself just me more most my no nor not ' +
    'now of off on once only or other our ours out over own same she should so some such than that the their theirs them then there these ' +
    'they this those through to too under until up us very was we were what when where which while who whom why will with would you your ' +
    'yours'
  ).split(' '),
);

/** `every`: a row must hold every word (AND), for choosing what to forget rather than ranking what to read. */
export function buildSearchQuery(text: string, options: { every?: boolean } = {}): SearchQuery {
  const raw = text.match(WORD) ?? [];
  if (raw.length === 0) return { ok: false, reason: 'the query has no words to search for (letters or digits)' };
  const words: string[] = [];
  const add = (word: string) => {
    if (!words.includes(word)) words.push(word);
  };
  for (const token of raw) {
    add(token.toLowerCase());
    for (const part of identifierParts(token)) add(part);
  }
  const content = words.filter((w) => !STOPWORDS.has(w));
  const kept = (content.length > 0 ? content : words).slice(0, MAX_WORDS);
  const match = kept.map((w) => `"${w}"${w.length >= PREFIX_MIN_LENGTH ? ' *' : ''}`).join(options.every ? ' AND ' : ' OR ');
  return { ok: true, match, words: kept };
}
