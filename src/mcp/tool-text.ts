import type { SearchHit, Timeline } from '../memory/index.js';
import type { StoredObservation } from '../store/index.js';

/**
 * What the MCP tools answer, as text an agent reads: every line names an observation's id and
 * title, so it can open only what it needs (search → timeline → get_observations). Pure.
 */
const day = (iso: string) => iso.slice(0, 10);
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
/** A teammate's (or another machine's) record says whose it is. */
const from = (origin: string | null | undefined) => (origin ? ` (from ${oneLine(origin)})` : '');

export function searchText(query: string, hits: readonly SearchHit[]): string {
  if (hits.length === 0) return `No memory matches "${oneLine(query)}". Try other words, or fewer.`;
  const lines = hits.map((h) =>
    h.kind === 'observation'
      ? `#${h.id} [${h.type}] ${day(h.created_at)} ${oneLine(h.title)}${from(h.origin)} — ${h.snippet}`
      : `summary ${h.id} [session summary] ${day(h.created_at)} ${oneLine(h.title)}${from(h.origin)} — ${h.snippet} (session ${h.session_id})`,
  );
  return [
    `${hits.length} result(s) for "${oneLine(query)}", best first:`,
    ...lines,
    '',
    'Open observations in full with get_observations {"ids": [...]}; see what happened around one with timeline {"observation_id": N} (or a session with timeline {"session_id": "..."}).',
  ].join('\n');
}

export function timelineText(timeline: Timeline): string {
  if (timeline.items.length === 0) return 'No memory stored yet.';
  const focus = new Set(timeline.focus.map((f) => `${f.kind}:${f.id}`));
  const lines = timeline.items.map((i) => {
    const mark = focus.has(`${i.kind}:${i.id}`) ? '→' : ' ';
    const ref = i.kind === 'observation' ? `#${i.id} [${i.type}]` : `summary ${i.id} [session summary]`;
    return `${mark} ${i.created_at.slice(0, 16).replace('T', ' ')} ${ref} ${oneLine(i.title)}${from(i.origin)} (session ${i.session_id})`;
  });
  return [`Timeline, oldest first (→ marks what was asked about):`, ...lines, '', 'Open observations in full with get_observations {"ids": [...]}.'].join('\n');
}

function observationText(o: StoredObservation): string {
  const parts = [
    `#${o.id} [${o.type}] ${oneLine(o.title)}`,
    `created ${o.createdAt ? new Date(o.createdAt).toISOString() : 'unknown'} · session ${o.sessionId}${o.project ? ` · project ${o.project}` : ''}${o.origin ? ` · from ${oneLine(o.origin)} (a shared project's member)` : ''}`,
  ];
  if (o.subtitle) parts.push(o.subtitle);
  if (o.narrative) parts.push('', o.narrative);
  if (o.facts.length > 0) parts.push('', 'Facts:', ...o.facts.map((f) => `- ${f}`));
  if (o.concepts.length > 0) parts.push(`Concepts: ${o.concepts.join(', ')}`);
  if (o.files_modified.length > 0) parts.push(`Files modified: ${o.files_modified.join(', ')}`);
  if (o.files_read.length > 0) parts.push(`Files read: ${o.files_read.join(', ')}`);
  return parts.join('\n');
}

export function observationsText(found: readonly StoredObservation[], missing: readonly number[]): string {
  const blocks = found.map(observationText);
  if (missing.length > 0) blocks.push(`Not found: ${missing.map((id) => `#${id}`).join(', ')} (never stored, or forgotten).`);
  return blocks.join('\n\n---\n\n');
}
