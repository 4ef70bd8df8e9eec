import { z } from 'zod';
import { redactTextInto, type RedactionCounts } from '../redaction/index.js';
import { OBSERVATION_TYPES, type ParsedObservation, type ParsedSummary } from '../vocabulary/observation.js';

/**
 * A pulled row checked before anything of it is stored: any member can write any JSON into the
 * shared log, so a body that is not a record of the kind it claims is refused (counted, never
 * stored), and every text is redacted once more on the way in — what another machine let through
 * is still never stored here. Pure.
 */
const text = z.string().max(1_000_000);
const list = z.array(text).max(10_000);

const observation = z.object({
  type: z.enum(OBSERVATION_TYPES),
  title: text,
  subtitle: text.default(''),
  narrative: text,
  facts: list.default([]),
  concepts: list.default([]),
  files_read: list.default([]),
  files_modified: list.default([]),
});

const summary = z.object({
  request: text,
  investigated: text,
  learned: text,
  completed: text,
  next_steps: text,
  notes: text.default(''),
});

export type IncomingRecord =
  | { ok: true; kind: 'observation'; record: ParsedObservation }
  | { ok: true; kind: 'summary'; record: ParsedSummary }
  | { ok: false; reason: string };

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a label must not hold.
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** How a member is shown: their label, without control characters, at most 100 characters. */
export function cleanLabel(label: string): string {
  const clean = label.replace(CONTROL, ' ').trim().slice(0, 100);
  return clean === '' ? 'unnamed' : clean;
}

export function checkIncoming(kind: string, body: unknown, counts: RedactionCounts): IncomingRecord {
  const r = (s: string) => redactTextInto(s, counts);
  if (kind === 'observation') {
    const parsed = observation.safeParse(body);
    if (!parsed.success) return { ok: false, reason: `not an observation (${parsed.error.issues[0]?.path.join('.') || 'body'})` };
    const o = parsed.data;
    if (o.title.trim() === '' && o.narrative.trim() === '' && o.facts.length === 0) return { ok: false, reason: 'an empty observation' };
    return {
      ok: true,
      kind,
      record: {
        type: o.type,
        title: r(o.title),
        subtitle: r(o.subtitle),
        narrative: r(o.narrative),
        facts: o.facts.map(r),
        concepts: o.concepts.map(r),
        files_read: o.files_read.map(r),
        files_modified: o.files_modified.map(r),
      },
    };
  }
  if (kind === 'summary') {
    const parsed = summary.safeParse(body);
    if (!parsed.success) return { ok: false, reason: `not a session summary (${parsed.error.issues[0]?.path.join('.') || 'body'})` };
    const s = parsed.data;
    return {
      ok: true,
      kind,
      record: {
        request: r(s.request),
        investigated: r(s.investigated),
        learned: r(s.learned),
        completed: r(s.completed),
        next_steps: r(s.next_steps),
        notes: r(s.notes),
      },
    };
  }
  return { ok: false, reason: `unknown kind ${JSON.stringify(kind).slice(0, 40)}` };
}
