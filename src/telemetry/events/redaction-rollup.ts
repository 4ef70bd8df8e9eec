import { SECRET_KINDS, type RedactionCounts, type SecretKind } from '../../redaction/kinds.js';
import { count, windowStart, type EventSpec } from '../field-types.js';

/**
 * Where a secret was caught before the first write: a hook's request, a Claude Code transcript
 * (mining, or the summary queued at session end), an imported file, or the guard in front of the
 * observer LLM (which should never find one: a count there means an edge above missed it).
 */
/** The kinds the rollup counts, one counter each: the redactor's closed list. */
export const REDACTION_KINDS = SECRET_KINDS;

export const REDACTION_EDGES = ['hook_api', 'transcript', 'import', 'observer_guard', 'share'] as const;
export type RedactionEdge = (typeof REDACTION_EDGES)[number];

export const REDACTION_ROLLUP: EventSpec = {
  name: 'redaction_rollup',
  description:
    'Secrets replaced by [REDACTED:<kind>] (and <private> spans by [PRIVATE]) before anything was stored, by kind. Only kinds and counts: never any part of a secret.',
  cadence: 'one per 5-minute window with redactions, per edge',
  fields: [
    {
      key: 'edge',
      type: { kind: 'enum', values: REDACTION_EDGES },
      description:
        'where the secret was caught: hook API, transcript, import, the final guard before the observer LLM, or a record crossing to or from a shared database',
    },
    count('total', 'redactions of every kind'),
    ...SECRET_KINDS.map((k) => count(k, k === 'private' ? '<private>…</private> spans replaced by [PRIVATE]' : `${k.replace(/_/g, ' ')}s replaced`)),
    windowStart,
  ],
};

/** The window's increments for a set of counts (absent kinds add nothing). */
export function redactionIncrements(counts: RedactionCounts): Record<string, number> {
  let total = 0;
  const out: Record<string, number> = {};
  for (const kind of Object.keys(counts) as SecretKind[]) {
    const n = counts[kind] ?? 0;
    if (n <= 0) continue;
    out[kind] = n;
    total += n;
  }
  if (total > 0) out.total = total;
  return out;
}
