import { identifierParts } from '../store/search-text.js';
import { DEFAULT_SCRIPT_STRATEGY, queryParts, type ScriptStrategy } from '../store/spaceless-scripts.js';

/**
 * Turns whatever a user typed into an FTS5 query that cannot fail. Pure.
 *
 * Only runs of letters and digits are kept, and each becomes a quoted FTS5 string, so `"`, `(`,
 * `*`, `AND`, `NEAR(` and friends are searched as words (or dropped as punctuation), never parsed
 * as syntax. Words are OR-ed: bm25 ranks a row higher the more of them it holds, so a question
 * asked in other words than the title still finds it by the words it shares. Common English
 * words are dropped when anything else is left; camelCase identifiers also search their parts;
 * longer words match as prefixes of the (porter-stemmed) index terms. A word in a script written
 * without spaces (`認証`, `中间件`) is the phrase of the units the index stores for it
 * (src/store/spaceless-scripts.ts), and a word mixing scripts (`JWT認証`) searches each part.
 */
export type SearchQuery = { ok: true; match: string; words: string[]; terms: QueryTerm[] } | { ok: false; reason: string };

/** One phrase of the match expression: its text as the index tokenizes it, and whether it also matches longer index terms. */
export interface QueryTerm {
  /** The FTS5 phrase as written in `match` (`"word" *`). */
  match: string;
  /** The text inside the quotes. */
  text: string;
  prefix: boolean;
}

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

/** One term of the query: a word (prefix-matched when long enough) or a phrase of index units. */
type Term = { word: string; match: string; text: string; prefix: boolean };

/** `every`: a row must hold every word (AND), for choosing what to forget rather than ranking what to read. */
export function buildSearchQuery(text: string, options: { every?: boolean; strategy?: ScriptStrategy } = {}): SearchQuery {
  const raw = text.match(WORD) ?? [];
  if (raw.length === 0) return { ok: false, reason: 'the query has no words to search for (letters or digits)' };
  const terms: Term[] = [];
  const add = (term: Term) => {
    if (!terms.some((t) => t.match === term.match)) terms.push(term);
  };
  const addWord = (word: string) => {
    const prefix = word.length >= PREFIX_MIN_LENGTH;
    add({ word, match: `"${word}"${prefix ? ' *' : ''}`, text: word, prefix });
  };
  for (const token of raw) {
    for (const part of queryParts(token, options.strategy ?? DEFAULT_SCRIPT_STRATEGY)) {
      if (part.kind === 'run') {
        for (const phrase of part.phrases) {
          const text = phrase.units.join(' ');
          add({ word: phrase.text, match: `"${text}"${phrase.single ? ' *' : ''}`, text, prefix: phrase.single });
        }
        continue;
      }
      addWord(part.text.toLowerCase());
      for (const piece of identifierParts(part.text)) addWord(piece);
    }
  }
  const content = terms.filter((t) => !STOPWORDS.has(t.word));
  const kept = (content.length > 0 ? content : terms).slice(0, MAX_WORDS);
  return {
    ok: true,
    match: kept.map((t) => t.match).join(options.every ? ' AND ' : ' OR '),
    words: kept.map((t) => t.word),
    terms: kept.map(({ match, text, prefix }) => ({ match, text, prefix })),
  };
}
