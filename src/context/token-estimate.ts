/**
 * Token estimate that follows how BPE tokenizers split text: Latin words and code average
 * about 4 characters a token, but CJK ideographs, kana and hangul are about one token each,
 * and an emoji or other astral symbol spans several byte-level tokens. Counting by code
 * point (never UTF-16 units) keeps a surrogate pair one symbol.
 *
 * Work is in quarter-token units so estimates of parts add up exactly to the whole.
 */
export const UNITS_PER_TOKEN = 4;
const LATIN_UNITS = 1; // 4 characters a token
const CJK_UNITS = 4; // 1 token a character
const ASTRAL_UNITS = 10; // 2.5 tokens a symbol (emoji are 4 UTF-8 bytes)
const OTHER_NON_ASCII_UNITS = 2; // accented Latin, Cyrillic, Greek: about 2 characters a token

export function estimateTokenUnits(text: string): number {
  let units = 0;
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    if (cp < 0x80) units += LATIN_UNITS;
    else if (isCjk(cp)) units += CJK_UNITS;
    else if (cp > 0xffff) units += ASTRAL_UNITS;
    else units += OTHER_NON_ASCII_UNITS;
  }
  return units;
}

export function unitsToTokens(units: number): number {
  return Math.ceil(units / UNITS_PER_TOKEN);
}

export function estimateTokens(text: string): number {
  return unitsToTokens(estimateTokenUnits(text));
}

function isCjk(cp: number): boolean {
  return (
    (cp >= 0x3040 && cp <= 0x30ff) || // hiragana, katakana
    (cp >= 0x3400 && cp <= 0x4dbf) || // CJK extension A
    (cp >= 0x4e00 && cp <= 0x9fff) || // CJK unified ideographs
    (cp >= 0xac00 && cp <= 0xd7af) || // hangul syllables
    (cp >= 0xf900 && cp <= 0xfaff) || // CJK compatibility ideographs
    (cp >= 0x20000 && cp <= 0x2fa1f) // supplementary ideographs
  );
}
