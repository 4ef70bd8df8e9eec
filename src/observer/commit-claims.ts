/**
 * Which hex strings in observer output claim a commit. A hash is claimed when it stands right
 * after "commit", "sha", "hash" or "revision" (7–40 hex), or is a bare full 40-hex id. A hex run
 * that is part of a longer token — a UUID segment, a colour, an identifier — claims nothing.
 * Pure.
 */
const NEAR_WORD = /\b(?:commit(?:ted|s)?|sha1?|hash|revision|rev)\b[\s:#`'"(=]*(?<![\w-])([0-9a-f]{7,40})(?![\w-])/gi;
const FULL_HASH = /(?<![\w#-])([0-9a-f]{40})(?![\w-])/gi;

export function claimedHashes(text: string): string[] {
  const found = new Set<string>();
  for (const pattern of [NEAR_WORD, FULL_HASH]) {
    for (const match of text.matchAll(pattern)) {
      const hash = match[1]!.toLowerCase();
      // A word of only letters (e.g. "deadbeef" is also hex) or only digits is not taken as a hash.
      if (/[a-f]/.test(hash) && /\d/.test(hash)) found.add(hash);
    }
  }
  return [...found];
}
