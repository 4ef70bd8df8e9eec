/**
 * Which hex strings in observer output claim a commit. A hash is claimed when it stands right
 * after "commit", "sha", "hash" or "revision" (7–40 hex), or is a bare full 40-hex id. A hex run
 * that is part of a longer token — a UUID segment, a colour, an identifier — claims nothing.
 * Pure.
 */
const NEAR_WORD = /\b(commit(?:ted|s)?|sha1?|hash|revision|rev)\b[\s:#`'"(=]*(?<![\w-])([0-9a-f]{7,40})(?![\w-])/gi;
const FULL_HASH = /(?<![\w#-])()([0-9a-f]{40})(?![\w-])/gi;

export function claimedHashes(text: string): string[] {
  const found = new Set<string>();
  for (const pattern of [NEAR_WORD, FULL_HASH]) {
    for (const match of text.matchAll(pattern)) {
      const hash = match[2]!.toLowerCase();
      if (isHashLike(hash, match[1]!.toLowerCase().startsWith('commit'))) found.add(hash);
    }
  }
  return [...found];
}

/**
 * Right after "commit" any hex run is a hash: about one short git hash in forty is all digits
 * (and a few are all letters), and leaving those unchecked would let a false one through. Elsewhere
 * a run of only letters ("deadbeef") or only digits (a revision number, a size) is not taken.
 */
function isHashLike(hash: string, afterCommit: boolean): boolean {
  return afterCommit || (/[a-f]/.test(hash) && /\d/.test(hash));
}
