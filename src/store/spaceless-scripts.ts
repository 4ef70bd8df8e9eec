/**
 * Words inside scripts written without spaces between them (docs/memory.md#every-script). Pure.
 *
 * FTS5's unicode61 tokenizer keeps a whole run of Chinese, Japanese or Korean letters as one
 * token, so a word inside a sentence cannot be found. The index and the query therefore both
 * see such text rewritten into units the tokenizer keeps apart:
 * - Han, kana and Hangul runs become overlapping character pairs (`認証ミドル` → `認証 証ミ ミド
 *   ドル ル`: the run's last character stands alone too, so every character starts a unit and a
 *   one-character query can match by prefix). A word of the query is then the phrase of its
 *   pairs, found wherever it sits in a run, whatever a dictionary would call a word there.
 * - Thai, Lao, Khmer and Myanmar runs become the words `Intl.Segmenter` finds (their combining
 *   vowel signs make character pairs poor units; the segmenter's dictionaries are good there).
 * - A token mixing scripts (`JWT認証`) is split where the script changes, so each part is found.
 * bench/memory.bench.ts measured the alternatives (segmenter words everywhere, pairs everywhere,
 * both) on its CJK set; docs/memory.md has the figures.
 */

/** How a run of each script family becomes index units; the default is what the store uses. */
export interface ScriptStrategy {
  /** Han, Hiragana, Katakana, Hangul. */
  cjk: 'pairs' | 'words' | 'pairs+words';
  /** Thai, Lao, Khmer, Myanmar. */
  southeastAsian: 'pairs' | 'words';
}

export const DEFAULT_SCRIPT_STRATEGY: ScriptStrategy = { cjk: 'pairs', southeastAsian: 'words' };

const CJK = '\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Hangul}';
const SEA = '\\p{scx=Thai}\\p{scx=Lao}\\p{scx=Khmer}\\p{scx=Myanmar}';
/** A letter (or digit) of the family: its punctuation (`。`, `「`) shares the script but separates words. */
const letterOf = (family: string) => `(?:(?![\\p{P}\\p{S}\\p{Z}])[${family}])`;
const CJK_CHAR = new RegExp(letterOf(CJK), 'u');
const SEA_CHAR = new RegExp(letterOf(SEA), 'u');
/** Any letter of those scripts, or a full-width form (which NFKC folds first). */
const SPACELESS = new RegExp(`${letterOf(CJK + SEA)}|[\\uff00-\\uffef]`, 'u');
/** A run of one family, with the combining marks that belong to its letters. */
const RUNS = new RegExp(`(${letterOf(CJK)}(?:${letterOf(CJK)}|\\p{M})*)|(${letterOf(SEA)}(?:${letterOf(SEA)}|\\p{M})*)`, 'gu');

let segmenter: Intl.Segmenter | null = null;
/** Word segmentation by ICU's dictionaries (this Node build has full ICU; checked in its test). */
function segmentWords(run: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  const words: string[] = [];
  for (const s of segmenter.segment(run)) if (s.isWordLike) words.push(s.segment);
  return words.length > 0 ? words : [run];
}

/** `認証ミドル` → ['認証', '証ミ', 'ミド', 'ドル', 'ル']; one character → itself. */
export function characterPairs(run: string): string[] {
  const chars = [...run];
  if (chars.length <= 1) return chars;
  const pairs: string[] = [];
  for (let i = 0; i + 1 < chars.length; i += 1) pairs.push(chars[i]! + chars[i + 1]!);
  pairs.push(chars.at(-1)!);
  return pairs;
}

/** Any character outside ASCII: text without one has nothing this module rewrites (a test far cheaper than SPACELESS). */
const NON_ASCII = /[\u0080-\uffff]/;

/** True when the text holds anything this module rewrites (a cheap test before the work). */
function hasSpacelessScript(text: string): boolean {
  return NON_ASCII.test(text) && SPACELESS.test(text);
}

/** Full-width letters and half-width kana folded to their usual forms (`ＪＷＴ` → `JWT`, `ﾐﾄﾞﾙ` → `ミドル`). */
function fold(text: string): string {
  return /[\uff00-\uffef]/.test(text) ? text.normalize('NFKC') : text;
}

/** The units of one run, as the index stores them. */
function runUnits(run: string, cjk: boolean, strategy: ScriptStrategy): string[] {
  if (!cjk) return strategy.southeastAsian === 'words' ? segmentWords(run) : characterPairs(run);
  if (strategy.cjk === 'pairs') return characterPairs(run);
  if (strategy.cjk === 'words') return segmentWords(run);
  return [...characterPairs(run), ...segmentWords(run)];
}

/**
 * Text as the index should tokenize it: each run of a space-less script replaced by its units,
 * separated from its neighbours by spaces. Text without such scripts is returned unchanged, so
 * what an English row puts into the index is exactly what it did before.
 */
export function indexableText(text: string, strategy: ScriptStrategy = DEFAULT_SCRIPT_STRATEGY): string {
  if (!hasSpacelessScript(text)) return text;
  return fold(text).replace(RUNS, (run: string, cjk: string | undefined) => ` ${runUnits(run, cjk !== undefined, strategy).join(' ')} `);
}

/** A phrase of index units the query searches for; `single`: one character stored as pairs, matched as a prefix. */
export interface QueryPhrase {
  text: string;
  units: string[];
  single: boolean;
}

/** A query word split at script changes: plain parts, and runs of a space-less script with the phrases they search. */
export type QueryPart = { kind: 'plain'; text: string } | { kind: 'run'; text: string; phrases: QueryPhrase[] };

function phraseOf(text: string, cjk: boolean, strategy: ScriptStrategy): QueryPhrase {
  // The query side of 'pairs+words' is the pairs: they find the words' places too. A run's
  // last character stands alone only at the end of a stored run, so the phrase leaves it out.
  const pairs = cjk ? strategy.cjk !== 'words' : strategy.southeastAsian === 'pairs';
  const length = [...text].length;
  const units = pairs ? characterPairs(text).slice(0, Math.max(1, length - 1)) : runUnits(text, cjk, strategy);
  return { text, units, single: pairs && length === 1 };
}

/**
 * One word of a query (a run of letters, marks and digits) in parts. A run is searched as the
 * phrase of its units, so `ミドルウェア` matches its pairs in order inside any longer run; and,
 * when the run is a whole sentence (`有効期限が切れたトークン`), also word by word as ICU
 * segments it, so a row holding some of its words is found too, ranked higher the more it holds.
 * One-character words (particles such as `が`, `的`) are left out when longer ones are there.
 */
export function queryParts(word: string, strategy: ScriptStrategy = DEFAULT_SCRIPT_STRATEGY): QueryPart[] {
  if (!hasSpacelessScript(word)) return [{ kind: 'plain', text: word }];
  const folded = fold(word);
  const parts: QueryPart[] = [];
  let last = 0;
  for (const match of folded.matchAll(RUNS)) {
    const at = match.index ?? 0;
    if (at > last) parts.push({ kind: 'plain', text: folded.slice(last, at) });
    const run = match[0];
    const cjk = match[1] !== undefined;
    const phrases = [phraseOf(run, cjk, strategy)];
    const words = segmentWords(run);
    if (words.length > 1) {
      const long = words.filter((w) => [...w].length > 1);
      for (const w of long.length > 0 ? long : words) if (!phrases.some((p) => p.text === w)) phrases.push(phraseOf(w, cjk, strategy));
    }
    parts.push({ kind: 'run', text: run, phrases });
    last = at + run.length;
  }
  if (last < folded.length) parts.push({ kind: 'plain', text: folded.slice(last) });
  return parts.filter((p) => p.text.trim() !== '');
}

/** Scripts whose letters sit in a word with no boundary before them: a snippet matches them anywhere. */
export function isSpacelessWord(word: string): boolean {
  return CJK_CHAR.test(word) || SEA_CHAR.test(word);
}
