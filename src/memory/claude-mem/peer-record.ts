import { OBSERVATION_TYPES, type ObservationType, type ParsedObservation, type ParsedSummary } from '../../vocabulary/observation.js';
import { isoToMs } from '../iso-time.js';

/**
 * One claude-mem row as memtrace memory. Pure. Its types are memtrace's own words (bugfix,
 * feature, refactor, change, discovery, decision); any other becomes `other` and is counted. Its
 * list fields are JSON arrays as text; an older row holding plain text there keeps it as one
 * item. A row that says nothing (no title, subtitle, narrative, text or facts) or has no readable
 * time is invalid: nothing of it is stored.
 */
export interface PeerObservationRow {
  id: number;
  memory_session_id: string | null;
  project: string | null;
  type: string | null;
  title: string | null;
  subtitle: string | null;
  narrative: string | null;
  facts: string | null;
  concepts: string | null;
  files_read: string | null;
  files_modified: string | null;
  created_at: string | null;
  created_at_epoch: number | null;
  text?: string | null;
  agent_type?: string | null;
  agent_id?: string | null;
  merged_into_project?: string | null;
  discovery_tokens?: number | null;
}

export interface PeerSummaryRow {
  id: number;
  memory_session_id: string | null;
  project: string | null;
  request: string | null;
  investigated: string | null;
  learned: string | null;
  completed: string | null;
  next_steps: string | null;
  notes: string | null;
  created_at: string | null;
  created_at_epoch: number | null;
  merged_into_project?: string | null;
}

export type MappedObservation = {
  ok: true;
  key: string;
  sessionKey: string;
  project: string | null;
  createdAtMs: number;
  observation: ParsedObservation;
  unknownType: boolean;
  agent: { id: string; type: string | null } | null;
  discoveryTokens: number | null;
};
export type MappedSummary = { ok: true; key: string; sessionKey: string; project: string | null; createdAtMs: number; summary: ParsedSummary };
export type Invalid = { ok: false; key: string; reason: string };

const KNOWN: ReadonlySet<string> = new Set(OBSERVATION_TYPES);
const str = (v: unknown) => (typeof v === 'string' ? v : '');
/** Epoch values below this are seconds, not milliseconds (before 1973 in ms; after 5138 in s). */
const SECONDS_BELOW = 100_000_000_000;

/** `["a","b"]` → ['a','b']; plain text → [text]; null, '' and `[]` → []. */
export function peerList(value: unknown): string[] {
  if (typeof value !== 'string' || value.trim() === '') return [];
  try {
    const parsed = JSON.parse(value) as unknown;
    if (Array.isArray(parsed))
      return parsed.filter((x) => x !== null && x !== undefined && String(x).trim() !== '').map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
    if (typeof parsed === 'string') return parsed.trim() === '' ? [] : [parsed];
  } catch {
    // not JSON: an older row's plain text
  }
  return [value];
}

/** The row's time in ms: its epoch (seconds or ms), else its ISO text; null when neither reads. */
export function peerTime(epoch: unknown, iso: unknown): number | null {
  if (typeof epoch === 'number' && Number.isFinite(epoch) && epoch > 0) return epoch < SECONDS_BELOW ? Math.round(epoch * 1000) : Math.round(epoch);
  // isoToMs reads a time without a zone as UTC (Date.parse would take the machine's zone) and refuses impossible days.
  return typeof iso === 'string' ? isoToMs(iso) : null;
}

export function mapType(type: string | null): { type: ObservationType; unknown: boolean } {
  const t = (type ?? '').trim().toLowerCase();
  return KNOWN.has(t) ? { type: t as ObservationType, unknown: false } : { type: 'other', unknown: true };
}

/** The first line of a text, cut to a title's length. */
function firstLine(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export function mapObservation(row: PeerObservationRow): MappedObservation | Invalid {
  const key = `observation:${row.memory_session_id ?? ''}:${row.id}`;
  if (!row.memory_session_id) return { ok: false, key, reason: 'no memory_session_id' };
  const createdAtMs = peerTime(row.created_at_epoch, row.created_at);
  if (createdAtMs === null) return { ok: false, key, reason: 'no readable created_at' };
  const facts = peerList(row.facts);
  const legacyText = str(row.text).trim();
  const narrative = str(row.narrative).trim() || legacyText;
  const title = str(row.title).trim() || str(row.subtitle).trim() || (narrative ? firstLine(narrative) : '') || (facts[0] ? firstLine(facts[0]) : '');
  if (title === '' && narrative === '' && facts.length === 0) return { ok: false, key, reason: 'no title, narrative, text or facts' };
  const { type, unknown } = mapType(row.type);
  const agentId = str(row.agent_id).trim();
  const tokens = typeof row.discovery_tokens === 'number' && row.discovery_tokens > 0 ? row.discovery_tokens : null;
  return {
    ok: true,
    key,
    sessionKey: row.memory_session_id,
    project: str(row.merged_into_project).trim() || row.project,
    createdAtMs,
    unknownType: unknown,
    agent: agentId ? { id: agentId, type: str(row.agent_type).trim() || null } : null,
    discoveryTokens: tokens,
    observation: {
      type,
      title,
      subtitle: str(row.subtitle).trim() === title ? '' : str(row.subtitle).trim(),
      narrative,
      facts,
      concepts: peerList(row.concepts),
      files_read: peerList(row.files_read),
      files_modified: peerList(row.files_modified),
    },
  };
}

export function mapSummary(row: PeerSummaryRow): MappedSummary | Invalid {
  const key = `summary:${row.memory_session_id ?? ''}:${row.id}`;
  if (!row.memory_session_id) return { ok: false, key, reason: 'no memory_session_id' };
  const createdAtMs = peerTime(row.created_at_epoch, row.created_at);
  if (createdAtMs === null) return { ok: false, key, reason: 'no readable created_at' };
  const summary: ParsedSummary = {
    request: str(row.request).trim(),
    investigated: str(row.investigated).trim(),
    learned: str(row.learned).trim(),
    completed: str(row.completed).trim(),
    next_steps: str(row.next_steps).trim(),
    notes: str(row.notes).trim(),
  };
  if (Object.values(summary).every((v) => v === '')) return { ok: false, key, reason: 'every field empty' };
  return { ok: true, key, sessionKey: row.memory_session_id, project: str(row.merged_into_project).trim() || row.project, createdAtMs, summary };
}
