/**
 * Dedup keys of mined transcripts (docs/interfaces.md#segments-and-dedup-keys). The session id is the transcript's basename,
 * so keys line up with the hooks' session_id. Session ids hold no '.', so a key parses back.
 */
const MINED_KEY_PREFIX = '_mined-transcripts#f-';

/** One segment of a session's transcript, `.0` included. */
export function segmentKey(sessionId: string, segment: number): string {
  return `${MINED_KEY_PREFIX}${sessionId}.${segment}`;
}

/** The legacy whole-file key: nothing writes it any more; it is migrated once to segment keys. */
export function legacyKey(sessionId: string): string {
  return `${MINED_KEY_PREFIX}${sessionId}`;
}

export type ParsedKey = { sessionId: string; segment: number } | { sessionId: string; segment: null };

export function parseMinedKey(key: string): ParsedKey | null {
  if (!key.startsWith(MINED_KEY_PREFIX)) return null;
  const rest = key.slice(MINED_KEY_PREFIX.length);
  const match = /^(.+)\.(\d{1,9})$/.exec(rest);
  if (match) return { sessionId: match[1]!, segment: Number(match[2]) };
  return rest === '' || rest.includes('.') ? null : { sessionId: rest, segment: null };
}
