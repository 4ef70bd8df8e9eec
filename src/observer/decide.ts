import { readBlockFields, type BlockFields } from './block-read.js';
import { scanBlocks, type RawBlock } from './block-scan.js';
import { scanCommonReply } from './common-reply.js';
import { cleanConcepts, cleanList, normalizeType } from './normalize.js';
import type { ParsedObservation, ParsedSummary } from '../vocabulary/observation.js';
import type { DecisionCounts, OutputClass, ParseDecision } from './types.js';

const SUMMARY_FIELDS = ['request', 'investigated', 'learned', 'completed', 'next_steps', 'notes'] as const;
const NOT_SPACE = /\S/;
const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze(Object.create(null) as Record<string, string>);
/** Anything tag-shaped: used only to name the class of a dropped reply, never to act on it. */
const TAG_LIKE = /<\/?[A-Za-z_][\w.:-]*(?:\s[^<>]*)?\/?>/;

/**
 * The drop-or-parse decision (docs/interfaces.md#drop-or-parse-decision). The reply's content is read only as XML blocks;
 * nothing else in it can change what happens. Never throws. `fastPath: false` reads every reply
 * with the full path (the differential tests compare the two).
 */
export function decideObserverOutput(reply: string, options: { fastPath?: boolean } = {}): ParseDecision {
  const counts: DecisionCounts = { blocks: 0, ghost: 0, truncated: 0, unknown_type: 0 };
  const text = typeof reply === 'string' ? reply : '';
  // (\s is exactly the whitespace String#trim removes; testing for it copies nothing.)
  if (!NOT_SPACE.test(text)) return dropped('idle', counts);

  const body = stripWholeReplyFence(text);
  // The common reply is read by the fast path; anything else (entities, CDATA, attributes, stray
  // `<`, odd case) by the full path. Both give the same fields for what they both read.
  let scan: { blocks: Array<RawBlock & { fields?: BlockFields }>; truncated: number } | null = null;
  const common = options.fastPath === false ? null : scanCommonReply(body);
  if (common) {
    const blocks = common.blocks.map((b) => ({
      name: b.name,
      attributes: b.type === undefined ? NO_ATTRIBUTES : typeAttribute(b.type),
      inner: '',
      fields: b.fields,
    }));
    scan = { blocks, truncated: common.truncated };
  } else {
    try {
      scan = scanBlocks(body);
    } catch {
      return dropped('malformed_xml', counts);
    }
  }
  counts.blocks = scan.blocks.length;
  counts.truncated = scan.truncated;

  const observations: ParsedObservation[] = [];
  const sources: string[][] = [];
  let summary: ParsedSummary | null = null;
  let skipped = false;
  let skipReason: string | null = null;

  for (const block of scan.blocks) {
    if (block.name === 'skip_summary') {
      skipped = true;
      skipReason = readSkipReason(block) ?? skipReason;
      continue;
    }
    const fields = block.fields ?? readBlockFields(block.inner);
    if (fields === null) continue;
    if (block.name === 'observation') {
      const observation = toObservation(block, fields, counts);
      if (observation) {
        observations.push(observation);
        sources.push(cleanList(fields.sources?.items ?? []));
      } else counts.ghost += 1;
    } else {
      const candidate = toSummary(fields);
      if (candidate) summary = candidate;
      else counts.ghost += 1;
    }
  }

  if (observations.length === 0 && summary === null && !skipped) {
    return dropped(TAG_LIKE.test(text) || counts.blocks > 0 || counts.truncated > 0 ? 'malformed_xml' : 'prose', counts);
  }
  return { outcome: 'parsed', class: 'xml', observations, sources, summary, skipped, skip_reason: skipReason, counts };
}

function typeAttribute(type: string): Record<string, string> {
  const attributes: Record<string, string> = Object.create(null);
  attributes.type = type;
  return attributes;
}

function dropped(cls: OutputClass, counts: DecisionCounts): ParseDecision {
  return { outcome: 'dropped', class: cls, observations: [], sources: [], summary: null, skipped: false, skip_reason: null, counts };
}

function toObservation(block: RawBlock, fields: BlockFields, counts: DecisionCounts): ParsedObservation | null {
  const text = (name: string) => (fields[name]?.text ?? '').trim();
  const items = (name: string) => fields[name]?.items ?? [];
  const { type, known } = normalizeType(block.attributes.type ?? fields.type?.text);
  const observation: ParsedObservation = {
    type,
    title: text('title'),
    subtitle: text('subtitle'),
    narrative: text('narrative'),
    facts: cleanList(items('facts')),
    concepts: cleanConcepts(items('concepts'), type),
    files_read: cleanList(items('files_read')),
    files_modified: cleanList(items('files_modified')),
  };
  const ghost = observation.title === '' && observation.narrative === '' && observation.facts.length === 0 && observation.concepts.length === 0;
  if (ghost) return null;
  if (!known) counts.unknown_type += 1;
  return observation;
}

/** Notes alone record no request, investigation, learning, completion or next step. */
const SUBSTANTIVE_SUMMARY_FIELDS = SUMMARY_FIELDS.filter((name) => name !== 'notes');

function toSummary(fields: BlockFields): ParsedSummary | null {
  const summary = Object.fromEntries(SUMMARY_FIELDS.map((name) => [name, (fields[name]?.text ?? '').trim()])) as unknown as ParsedSummary;
  return SUBSTANTIVE_SUMMARY_FIELDS.some((name) => summary[name] !== '') ? summary : null;
}

function readSkipReason(block: RawBlock): string | null {
  const fromAttribute = block.attributes.reason;
  if (fromAttribute !== undefined && fromAttribute.trim() !== '') return decodeBasicEntities(fromAttribute.trim());
  if (block.inner.trim() === '') return null;
  const fields = readBlockFields(block.inner);
  const inner = fields?.reason?.text.trim() || (fields === null ? '' : innerText(block.inner));
  return inner === '' ? null : inner;
}

function innerText(inner: string): string {
  const fields = readBlockFields(`<reason>${inner}</reason>`);
  return fields?.reason?.text.trim() ?? '';
}

function decodeBasicEntities(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name] ?? '');
}

/** A reply wrapped whole in a ``` fence is unwrapped; fences inside a narrative stay. */
export function stripWholeReplyFence(text: string): string {
  const first = NOT_SPACE.exec(text);
  if (first === null || text.charCodeAt(first.index) !== 96 /* ` */) return text;
  const trimmed = text.trim();
  if (!trimmed.startsWith('```') || !trimmed.endsWith('```') || trimmed.length < 6) return text;
  const firstLineEnd = trimmed.indexOf('\n');
  if (firstLineEnd === -1) return text;
  if (!/^```[\w.+-]*\s*$/.test(trimmed.slice(0, firstLineEnd))) return text;
  return trimmed.slice(firstLineEnd + 1, trimmed.length - 3);
}
