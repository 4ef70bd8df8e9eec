import { isStringExpr, type Aggregate, type Dimension, type Expr, type Tile } from './tile-ir.js';

/**
 * The dialect-free shape of a tile's query: the distinct per-row expressions ("leaves", each
 * summed once per group as f0, f1, …), the measures as arithmetic over those sums, and which
 * properties each event's rows must read. Both compilers render this plan.
 */
export type PlannedAggregate = { sum: number } | { xTotal: number } | { ratio: [PlannedAggregate, PlannedAggregate] } | { product: [PlannedAggregate, PlannedAggregate] };

export interface TilePlan {
  tile: Tile;
  leaves: Expr[];
  measures: Array<{ name: string; agg: PlannedAggregate }>;
  having: number | null;
  /** Property key → the events whose rows read it (null: every event the tile reads). */
  keys: Map<string, ReadonlySet<string> | null>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const PROPERTY_KEY = /^\$?[a-z_][a-z0-9_]*$/i;
const RESERVED = new Set(['x', 'xk', 'series', 'uuid', 'event', 'timestamp', 'distinct_id', 'properties']);

/** Property keys are spliced into both dialects, so only schema-shaped names are accepted. */
export function assertPropertyKey(key: string): string {
  if (!PROPERTY_KEY.test(key)) throw new Error(`dashboard tile: property key ${JSON.stringify(key)} is not a plain identifier`);
  return key;
}

/** Problems with a tile definition, empty when it is sound. */
export function validateTile(tile: Tile): string[] {
  const errors: string[] = [];
  if (!IDENTIFIER.test(tile.id.replace(/-/g, '_'))) errors.push(`id ${JSON.stringify(tile.id)} must be lower-case words joined by - or _`);
  if (tile.events.length === 0) errors.push('reads no events');
  if (tile.measures.length === 0) errors.push('has no measures');
  const names = new Set<string>();
  for (const m of tile.measures) {
    if (!IDENTIFIER.test(m.name) || RESERVED.has(m.name) || /^f\d+$/.test(m.name)) errors.push(`measure name ${JSON.stringify(m.name)} is not allowed`);
    if (names.has(m.name)) errors.push(`measure ${m.name} is defined twice`);
    names.add(m.name);
  }
  for (const p of tile.plot ?? []) if (!names.has(p)) errors.push(`plots unknown measure ${p}`);
  if (tile.order && !names.has(tile.order.by)) errors.push(`orders by unknown measure ${tile.order.by}`);
  if (tile.limit !== undefined && !(Number.isInteger(tile.limit) && tile.limit > 0)) errors.push('limit must be a positive whole number');
  return errors.map((e) => `dashboard tile ${tile.id}: ${e}`);
}

function collectKeys(e: Expr, guard: ReadonlySet<string> | null, into: Map<string, ReadonlySet<string> | null>): void {
  const use = (key: string) => {
    assertPropertyKey(key);
    const seen = into.get(key);
    if (seen === null) return;
    if (guard === null) into.set(key, null);
    else into.set(key, new Set([...(seen ?? []), ...guard]));
  };
  if ('num' in e) use(e.num);
  else if ('str' in e) use(e.str);
  else if ('has' in e) use(e.has);
  else if ('eq' in e) collectKeys(e.eq[0], guard, into);
  else if ('anyOf' in e) e.anyOf.forEach((p) => collectKeys(p, guard, into));
  else if ('not' in e) collectKeys(e.not, guard, into);
  else if ('mul' in e) e.mul.forEach((p) => collectKeys(p, guard, into));
  else if ('add' in e) e.add.forEach((p) => collectKeys(p, guard, into));
  else if ('firstOf' in e) e.firstOf.forEach((p) => collectKeys(p, guard, into));
  else if ('byEvent' in e) for (const [event, p] of Object.entries(e.byEvent)) collectKeys(p, new Set([event]), into);
}

/** Throws on an unsound definition: tiles are code, so that is a programming error caught by tests. */
export function planTile(tile: Tile): TilePlan {
  const errors = validateTile(tile);
  if (errors.length > 0) throw new Error(errors.join('; '));
  const leaves: Expr[] = [];
  const seen = new Map<string, number>();
  const leaf = (e: Expr): number => {
    const key = JSON.stringify(e);
    let index = seen.get(key);
    if (index === undefined) {
      index = leaves.length;
      leaves.push(e);
      seen.set(key, index);
    }
    return index;
  };
  const plan = (a: Aggregate): PlannedAggregate => {
    if ('sum' in a) return { sum: leaf(a.sum) };
    if ('xTotal' in a) return { xTotal: leaf(a.xTotal) };
    if ('ratio' in a) return { ratio: [plan(a.ratio[0]), plan(a.ratio[1])] };
    return { product: [plan(a.product[0]), plan(a.product[1])] };
  };
  const measures = tile.measures.map((m) => ({ name: m.name, agg: plan(m.agg) }));
  const having = tile.having ? leaf(tile.having.nonZero) : null;
  const keys = new Map<string, ReadonlySet<string> | null>();
  for (const e of leaves) collectKeys(e, null, keys);
  for (const dim of [tile.x, tile.series]) if (dim !== undefined && typeof dim === 'object') collectKeys(dim.expr, null, keys);
  return { tile, leaves, measures, having, keys };
}

/** Renders a planned aggregate with a dialect's sum, window total and safe division. */
export function renderAggregate(
  a: PlannedAggregate,
  d: { sum(leaf: number): string; xTotal(leaf: number): string; ratio(num: string, den: string): string },
): string {
  if ('sum' in a) return d.sum(a.sum);
  if ('xTotal' in a) return d.xTotal(a.xTotal);
  if ('ratio' in a) return d.ratio(renderAggregate(a.ratio[0], d), renderAggregate(a.ratio[1], d));
  return `(${renderAggregate(a.product[0], d)}) * (${renderAggregate(a.product[1], d)})`;
}

/** Renders an expression; only the leaves differ between dialects. */
export interface ExprDialect {
  num(key: string): string;
  str(key: string): string;
  has(key: string): string;
  flag(condition: string): string;
  byEvent(cases: Array<[string, string]>, otherwise: string): string;
  firstOf(parts: string[]): string;
}

/** String literals are tile constants; a backslash reads differently in the two dialects, so none is allowed. */
export function quote(s: string): string {
  if (/[\\\u0000-\u001f]/.test(s)) throw new Error(`dashboard tile: literal ${JSON.stringify(s)} holds a backslash or control character`);
  return `'${s.replace(/'/g, "''")}'`;
}

export function renderExpr(e: Expr, d: ExprDialect): string {
  if ('num' in e) return d.num(assertPropertyKey(e.num));
  if ('str' in e) return d.str(assertPropertyKey(e.str));
  if ('has' in e) return d.has(assertPropertyKey(e.has));
  if ('lit' in e) return Number.isFinite(e.lit) ? String(e.lit) : '0';
  if ('eq' in e) return d.flag(`${renderExpr(e.eq[0], d)} = ${quote(e.eq[1])}`);
  if ('anyOf' in e) return d.flag(e.anyOf.map((p) => `(${renderExpr(p, d)}) != 0`).join(' OR '));
  if ('not' in e) return d.flag(`(${renderExpr(e.not, d)}) = 0`);
  if ('mul' in e) return `(${renderExpr(e.mul[0], d)}) * (${renderExpr(e.mul[1], d)})`;
  if ('add' in e) return `(${e.add.map((p) => renderExpr(p, d)).join(' + ')})`;
  if ('firstOf' in e) return d.firstOf(e.firstOf.map((p) => renderExpr(p, d)));
  return d.byEvent(
    Object.entries(e.byEvent).map(([event, p]) => [quote(event), renderExpr(p, d)]),
    isStringExpr(e) ? "''" : '0',
  );
}

export function dimensionLabel(dim: Dimension): string {
  return dim === 'week' ? 'week' : dim === 'install' ? 'install' : dim.label;
}
