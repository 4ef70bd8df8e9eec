import { z } from 'zod';
import { OBSERVATION_TYPES } from '../vocabulary/observation.js';
import type { StoredObservation, StoredSummary } from '../store/index.js';
import { isoToMs } from './iso-time.js';

/**
 * One line of a jsonl export (docs/memory.md#export-and-import), as data: the shapes, how a stored row becomes a line,
 * and how a line is checked on import. Pure.
 */
export interface ObservationLine {
  id?: number;
  session_id: string;
  project: string | null;
  type: (typeof OBSERVATION_TYPES)[number];
  title: string;
  subtitle?: string;
  narrative: string;
  facts?: string[];
  concepts?: string[];
  files_read?: string[];
  files_modified?: string[];
  created_at: string;
  /** The worktree it was made in, when that is not the project's main checkout. */
  checkout?: string;
  /** Who made it, when another member of a shared project did (docs/sharing.md). */
  origin?: string;
}

export interface SummaryLine {
  kind: 'summary';
  id?: number;
  session_id: string;
  project: string | null;
  request: string;
  investigated: string;
  learned: string;
  completed: string;
  next_steps: string;
  notes?: string;
  created_at: string;
  checkout?: string;
  origin?: string;
}

/** A checkout is written only where it says more than the project (a worktree), so other lines keep their bytes. */
const checkoutField = (checkout: string | null | undefined, project: string | null) => (checkout && checkout !== project ? { checkout } : {});
/** Written only for another member's record, so this machine's lines keep their bytes. */
const originField = (origin: string | null | undefined) => (origin ? { origin } : {});

export function observationLine(o: StoredObservation): Required<Omit<ObservationLine, 'checkout' | 'origin'>> & Pick<ObservationLine, 'checkout' | 'origin'> {
  return {
    id: o.id,
    session_id: o.sessionId,
    project: o.project,
    type: o.type,
    title: o.title,
    subtitle: o.subtitle,
    narrative: o.narrative,
    facts: o.facts,
    concepts: o.concepts,
    files_read: o.files_read,
    files_modified: o.files_modified,
    created_at: new Date(o.createdAt).toISOString(),
    ...checkoutField(o.checkout, o.project),
    ...originField(o.origin),
  };
}

export function summaryLine(s: StoredSummary): Required<Omit<SummaryLine, 'checkout' | 'origin'>> & Pick<SummaryLine, 'checkout' | 'origin'> {
  return {
    kind: 'summary',
    id: s.id,
    session_id: s.sessionId,
    project: s.project,
    request: s.request,
    investigated: s.investigated,
    learned: s.learned,
    completed: s.completed,
    next_steps: s.next_steps,
    notes: s.notes,
    created_at: new Date(s.createdAt).toISOString(),
    ...checkoutField(s.checkout, s.project),
    ...originField(s.origin),
  };
}

const createdAt = z.string().refine((s) => isoToMs(s) !== null, 'must be an ISO 8601 date such as 2026-01-31T12:00:00.000Z');
const id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const text = z.string().max(1_000_000);
const list = z.array(text).max(10_000);
const sessionId = z.string().min(1).max(512);
const project = z.string().max(4096).nullable();
const checkout = z.string().min(1).max(4096).optional();
// biome-ignore lint/suspicious/noControlCharactersInRegex: a member's label holds no control characters.
const LABEL = /^[^\u0000-\u001f\u007f]*$/;
const origin = z.string().min(1).max(100).regex(LABEL).optional();

const observationSchema = z.object({
  kind: z.literal('observation').optional(),
  id: id.optional(),
  session_id: sessionId,
  project,
  type: z.string(),
  title: text,
  subtitle: text.optional(),
  narrative: text,
  facts: list.optional(),
  concepts: list.optional(),
  files_read: list.optional(),
  files_modified: list.optional(),
  created_at: createdAt,
  checkout,
  origin,
});

const summarySchema = z.object({
  kind: z.literal('summary'),
  id: id.optional(),
  session_id: sessionId,
  project,
  request: text,
  investigated: text,
  learned: text,
  completed: text,
  next_steps: text,
  notes: text.optional(),
  created_at: createdAt,
  checkout,
  origin,
});

const KNOWN_TYPES: ReadonlySet<string> = new Set(OBSERVATION_TYPES);

export type CheckedLine =
  | {
      ok: true;
      kind: 'observation';
      line: Required<ObservationLine> & { id: number | null; checkout: string | null; origin: string | null };
      createdAtMs: number;
    }
  | { ok: true; kind: 'summary'; line: Required<SummaryLine> & { id: number | null; checkout: string | null; origin: string | null }; createdAtMs: number }
  | { ok: false; reason: string };

/** Checks one line of text; the reason names the field. Blank lines are not lines (the caller skips them). */
export function checkLine(text: string): CheckedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' };
  const kind = (value as { kind?: unknown }).kind;
  if (kind !== undefined && kind !== 'observation' && kind !== 'summary')
    return { ok: false, reason: `unknown kind ${JSON.stringify(kind)} (observation or summary)` };
  if (kind === 'summary') {
    const parsed = summarySchema.safeParse(value);
    if (!parsed.success) return { ok: false, reason: describe(parsed.error) };
    const d = parsed.data;
    return {
      ok: true,
      kind: 'summary',
      createdAtMs: isoToMs(d.created_at)!,
      line: {
        ...d,
        kind: 'summary',
        id: d.id ?? null,
        notes: d.notes ?? '',
        checkout: d.checkout ?? null,
        origin: d.origin ?? null,
      } as Required<SummaryLine> & {
        id: number | null;
        checkout: string | null;
        origin: string | null;
      },
    };
  }
  const parsed = observationSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: describe(parsed.error) };
  const d = parsed.data;
  if (!KNOWN_TYPES.has(d.type)) return { ok: false, reason: `unknown type ${JSON.stringify(d.type)} (one of ${OBSERVATION_TYPES.join(', ')})` };
  return {
    ok: true,
    kind: 'observation',
    createdAtMs: isoToMs(d.created_at)!,
    line: {
      id: d.id ?? null,
      session_id: d.session_id,
      project: d.project,
      type: d.type as ObservationLine['type'],
      title: d.title,
      subtitle: d.subtitle ?? '',
      narrative: d.narrative,
      facts: d.facts ?? [],
      concepts: d.concepts ?? [],
      files_read: d.files_read ?? [],
      files_modified: d.files_modified ?? [],
      created_at: d.created_at,
      checkout: d.checkout ?? null,
      origin: d.origin ?? null,
    } as Required<ObservationLine> & { id: number | null; checkout: string | null; origin: string | null },
  };
}

function describe(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const field = issue.path.join('.');
  if (issue.code === 'invalid_type' && issue.received === 'undefined') return `missing field ${field}`;
  return `${field || 'line'}: ${issue.message}`;
}
