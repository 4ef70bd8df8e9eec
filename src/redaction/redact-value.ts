import type { RedactionCounts, SecretKind } from './kinds.js';
import { replacementFor } from './kinds.js';
import { redactTextInto } from './scan.js';

/**
 * A JSON value (a hook payload, a mined event, an import line) with every string redacted,
 * keys included. A header carried as a JSON field (`{"Authorization": "Bearer …"}`) has its
 * name and value in two strings, so a field named like a credential header is redacted by its
 * name. Values that are unchanged are returned as they are (no copy).
 */
const HEADER_FIELDS: Readonly<Record<string, SecretKind>> = {
  authorization: 'authorization_header',
  'proxy-authorization': 'authorization_header',
  cookie: 'cookie_header',
  'set-cookie': 'cookie_header',
};
const SCHEME = /^(Bearer|Basic|Token|Digest|Negotiate|Bot)[ \t]+/i;
/** Deeper values are left to the caller's own depth limit (the HTTP edge refuses > 64 levels). */
const MAX_DEPTH = 256;

export function redactValueInto<T>(value: T, counts: RedactionCounts): T {
  return walk(value, counts, 0) as T;
}

export function redactValue<T>(value: T): { value: T; counts: RedactionCounts } {
  const counts: RedactionCounts = {};
  return { value: redactValueInto(value, counts), counts };
}

function walk(value: unknown, counts: RedactionCounts, depth: number): unknown {
  if (typeof value === 'string') return redactTextInto(value, counts);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i += 1) {
      const item = walk(value[i], counts, depth + 1);
      if (item !== value[i]) {
        copy ??= value.slice();
        copy[i] = item;
      }
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | null = null;
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [key, item] of entries) {
    const header = HEADER_FIELDS[key.toLowerCase()];
    const next = header !== undefined && typeof item === 'string' && item !== '' ? redactHeaderValue(item, header, counts) : walk(item, counts, depth + 1);
    const redactedKey = redactTextInto(key, counts);
    if (next !== item || redactedKey !== key) {
      copy ??= Object.fromEntries(entries);
      if (redactedKey !== key) delete copy[key];
      copy[redactedKey] = next;
    }
  }
  return copy ?? value;
}

function redactHeaderValue(value: string, kind: SecretKind, counts: RedactionCounts): string {
  if (value.startsWith('[REDACTED:')) return value;
  counts[kind] = (counts[kind] ?? 0) + 1;
  const scheme = kind === 'authorization_header' ? SCHEME.exec(value) : null;
  return `${scheme ? scheme[0] : ''}${replacementFor(kind)}`;
}
