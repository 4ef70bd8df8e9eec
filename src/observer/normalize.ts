import { OBSERVATION_TYPES, type ObservationType } from '../vocabulary/observation.js';

const TYPE_SET: ReadonlySet<string> = new Set(OBSERVATION_TYPES);

export function normalizeType(raw: string | undefined): { type: ObservationType; known: boolean } {
  const value = (raw ?? '').trim().toLowerCase();
  return TYPE_SET.has(value) ? { type: value as ObservationType, known: true } : { type: 'other', known: false };
}

/** Trimmed, non-empty, first occurrence kept. */
export function cleanList(items: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of items) {
    const value = item.trim();
    if (value === '' || seen.has(value)) continue;
    seen.add(value);
    out.push(value);
  }
  return out;
}

/**
 * Concepts are short tags: `how-it-works: the cache layer` keeps `how-it-works`, and a concept
 * that only repeats the observation's type adds nothing.
 */
export function cleanConcepts(items: readonly string[], type: ObservationType): string[] {
  const cut = items.map((item) => {
    const colon = item.indexOf(':');
    return colon === -1 ? item : item.slice(0, colon);
  });
  const seen = new Set<string>();
  return cleanList(cut).filter((concept) => {
    const key = concept.toLowerCase();
    if (key === type || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
