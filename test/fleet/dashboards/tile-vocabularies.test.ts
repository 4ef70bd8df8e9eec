import { describe, expect, it } from 'vitest';
import { TILES, type Expr, type Tile } from '../../../src/fleet/dashboards/index.js';
import { REVIEW_SUMS_TILE } from '../../../src/fleet/review/review-sums-tile.js';
import { BASE_FIELDS, eventSpec, MEMORY_ACCESS_VIA, PLATFORMS, REDACTION_KINDS, TELEMETRY_EVENTS, type EventSpec } from '../../../src/telemetry/index.js';

/**
 * The tiles read memtrace's events through the telemetry schema's vocabularies. These checks fail
 * when the two drift apart: a tile reading a counter or a category the schema does not define, or
 * the schema growing a category (an abort reason, a bucket, a kind) that no tile shows.
 */

/** Where an expression reads a property, with the events it can come from (null: any of the tile's). */
interface Read {
  tile: string;
  events: readonly string[];
  key: string;
  /** A string value compared with the property, or chosen when it is absent. */
  value?: string;
}

function reads(tile: Tile, e: Expr, events: readonly string[], into: Read[]): void {
  const at = (key: string, value?: string) => into.push({ tile: tile.id, events, key, ...(value === undefined ? {} : { value }) });
  if ('num' in e) at(e.num);
  else if ('str' in e) at(e.str);
  else if ('has' in e) at(e.has);
  else if ('eq' in e) {
    const [inner, value] = e.eq;
    if ('str' in inner) at(inner.str, value);
    else reads(tile, inner, events, into);
  } else if ('firstOf' in e) {
    const field = e.firstOf.find((p): p is { str: string } => 'str' in p);
    for (const p of e.firstOf) {
      if ('text' in p && field !== undefined) at(field.str, p.text);
      else reads(tile, p, events, into);
    }
  } else if ('anyOf' in e) {
    for (const p of e.anyOf) reads(tile, p, events, into);
  } else if ('not' in e) reads(tile, e.not, events, into);
  else if ('mul' in e) {
    for (const p of e.mul) reads(tile, p, events, into);
  } else if ('add' in e) {
    for (const p of e.add) reads(tile, p, events, into);
  } else if ('byEvent' in e) for (const [event, p] of Object.entries(e.byEvent)) reads(tile, p, [event], into);
}

type Aggregate = Tile['measures'][number]['agg'];

function aggregateExprs(a: Aggregate, into: Expr[]): void {
  if ('sum' in a) into.push(a.sum);
  else if ('installs' in a) into.push(a.installs);
  else if ('xTotal' in a) into.push(a.xTotal);
  else if ('ratio' in a) {
    for (const p of a.ratio) aggregateExprs(p, into);
  } else if ('product' in a) {
    for (const p of a.product) aggregateExprs(p, into);
  } else if ('scale' in a) aggregateExprs(a.scale[0], into);
  else if ('atLeast' in a) {
    for (const p of [a.atLeast.value, a.atLeast.of, a.atLeast.min]) aggregateExprs(p, into);
  } else for (const b of a.quantile.buckets) aggregateExprs(b.count, into);
}

function tileReads(tile: Tile): Read[] {
  const exprs: Expr[] = [];
  for (const m of tile.measures) aggregateExprs(m.agg, exprs);
  for (const d of [tile.x, tile.series?.by]) if (d !== undefined && typeof d !== 'string') exprs.push(d.expr);
  if (tile.having) exprs.push(tile.having.nonZero);
  const out: Read[] = [];
  for (const e of exprs) reads(tile, e, tile.events, out);
  return out;
}

const ALL_TILES = [...TILES, REVIEW_SUMS_TILE];
const ALL_READS = ALL_TILES.flatMap(tileReads);
const memtraceEvents = (events: readonly string[]) => events.map(eventSpec).filter((s): s is EventSpec => s !== undefined);
const fieldOf = (spec: EventSpec, key: string) => [...BASE_FIELDS, ...spec.fields].find((f) => f.key === key);

/** Every field of `event` whose key matches, and whether some tile reads it from that event. */
function unread(event: string, keyPattern: RegExp): string[] {
  const spec = eventSpec(event)!;
  const keys = spec.fields.map((f) => f.key).filter((k) => keyPattern.test(k));
  expect(keys.length, `${event} has fields matching ${keyPattern}`).toBeGreaterThan(0);
  return keys.filter((k) => !ALL_READS.some((r) => r.key === k && r.events.includes(event)));
}

describe('fleet tiles and the telemetry schema', () => {
  it('reads from memtrace events only the fields the schema defines for them', () => {
    const unknown: string[] = [];
    for (const r of ALL_READS) {
      const specs = memtraceEvents(r.events);
      // A read that can only come from the legacy fleet's events is not memtrace's schema to check.
      // `$`-properties are PostHog's own (the legacy fleet's `$app_version`), not memtrace's schema.
      if (specs.length === 0 || r.key.startsWith('$')) continue;
      if (!specs.some((s) => fieldOf(s, r.key) !== undefined)) unknown.push(`${r.tile}: ${r.key} on ${specs.map((s) => s.name).join('|')}`);
    }
    expect(unknown).toEqual([]);
  });

  it('compares enum fields only with values of their enum', () => {
    const outside: string[] = [];
    for (const r of ALL_READS) {
      if (r.value === undefined) continue;
      for (const spec of memtraceEvents(r.events)) {
        const field = fieldOf(spec, r.key);
        if (field?.type.kind === 'enum' && !field.type.values.includes(r.value)) outside.push(`${r.tile}: ${r.key} = ${r.value} on ${spec.name}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('shows every category the schema counts by', () => {
    expect(unread('observer_turn_rollup', /^abort_reason_/)).toEqual([]);
    expect(unread('observer_turn_rollup', /^invalid_class_/)).toEqual([]);
    expect(unread('observer_turn_rollup', /^obs_type_/)).toEqual([]);
    expect(unread('hook_rollup', /^ms_(le|gt)_/)).toEqual([]);
    expect(unread('agent_time_rollup', /^pct_(le|gt)_/)).toEqual([]);
    expect(REDACTION_KINDS.filter((k) => !ALL_READS.some((r) => r.key === k && r.events.includes('redaction_rollup')))).toEqual([]);
    const viaShown = new Set(ALL_READS.filter((r) => r.key === 'via' && r.events.includes('memory_access_rollup')).map((r) => r.value));
    expect(MEMORY_ACCESS_VIA.filter((v) => !viaShown.has(v))).toEqual([]);
  });

  it('names a host the schema knows when a rollup names none', () => {
    const defaults = ALL_READS.filter((r) => r.key === 'platform' && r.value !== undefined).map((r) => r.value!);
    expect(defaults.length).toBeGreaterThan(0);
    expect(defaults.filter((v) => !(PLATFORMS as readonly string[]).includes(v))).toEqual([]);
  });

  it('reads only events the schema defines, besides the legacy fleet’s', () => {
    const known = new Set([...TELEMETRY_EVENTS.map((e) => e.name), 'session_compressed', 'context_injected']);
    expect(ALL_TILES.flatMap((t) => t.events.filter((e) => !known.has(e)).map((e) => `${t.id}: ${e}`))).toEqual([]);
  });
});
