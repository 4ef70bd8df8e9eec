import { isStringExpr, type Aggregate, type Expr, type Tile } from './tile-ir.js';

/**
 * The dialect-free shape of a tile's query: the distinct per-row expressions ("leaves", each
 * summed once per group as f0, f1, …), the measures as arithmetic over those sums, and which
 * properties each event's rows must read. Both compilers render this plan.
 */
export type PlannedAggregate =
  | { sum: number }
  | { xTotal: number }
  | { ratio: [PlannedAggregate, PlannedAggregate] }
  | { product: [PlannedAggregate, PlannedAggregate] }
  | { scale: [PlannedAggregate, number] }
  | { atLeast: { value: PlannedAggregate; of: PlannedAggregate; min: PlannedAggregate } }
  | { quantile: { q: number; buckets: Array<{ upTo: number | null; count: PlannedAggregate }> } };

export interface TilePlan {
  tile: Tile;
  leaves: Expr[];
  /** Leaves that count distinct installs with a non-zero value (the rest are sums). */
  distinct: ReadonlySet<number>;
  measures: Array<{ name: string; agg: PlannedAggregate }>;
  having: number | null;
  /** Leaves some measure reads as a total over the x (whatever the series). */
  xTotals: number[];
  /** Property key → the events whose rows read it (null: every event the tile reads). */
  keys: Map<string, ReadonlySet<string> | null>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const PROPERTY_KEY = /^\$?[a-z_][a-z0-9_]*$/i;
/** The columns a tile that keeps ranked ends adds to each row (Tile.keep). */
export const RANKED_COLUMNS = {
  /** 1 for the first group in the tile's order. */
  position: 'ranked_position',
  /** How many groups were ranked. */
  of: 'ranked_of',
  /** How many of them are above zero on the order's measure. */
  aboveZero: 'ranked_above_zero',
} as const;
const RESERVED = new Set(['x', 'xk', 'series', 'uuid', 'event', 'timestamp', 'distinct_id', 'properties', ...Object.values(RANKED_COLUMNS)]);
/** Names the compilers use for their own columns (f0 a group's sum, t0 its x total, v0 a row's value). */
const INTERNAL = /^[ftv]\d+$/;

/** Property keys are spliced into both dialects, so only schema-shaped names are accepted. */
function assertPropertyKey(key: string): string {
  if (!PROPERTY_KEY.test(key)) throw new Error(`dashboard tile: property key ${JSON.stringify(key)} is not a plain identifier`);
  return key;
}

/** Problems with a tile definition, empty when it is sound. */
function validateTile(tile: Tile): string[] {
  const errors: string[] = [];
  if (!IDENTIFIER.test(tile.id.replace(/-/g, '_'))) errors.push(`id ${JSON.stringify(tile.id)} must be lower-case words joined by - or _`);
  if (tile.events.length === 0) errors.push('reads no events');
  if (tile.measures.length === 0) errors.push('has no measures');
  const names = new Set<string>();
  for (const m of tile.measures) {
    if (!IDENTIFIER.test(m.name) || RESERVED.has(m.name) || INTERNAL.test(m.name)) errors.push(`measure name ${JSON.stringify(m.name)} is not allowed`);
    if (names.has(m.name)) errors.push(`measure ${m.name} is defined twice`);
    names.add(m.name);
  }
  for (const p of tile.plot ?? []) if (!names.has(p)) errors.push(`plots unknown measure ${p}`);
  if (tile.order && !names.has(tile.order.by)) errors.push(`orders by unknown measure ${tile.order.by}`);
  if (tile.series?.total !== undefined && !/^[\w .()-]{1,40}$/.test(tile.series.total))
    errors.push(`series total label ${JSON.stringify(tile.series.total)} must be plain words`);
  if (tile.series?.total !== undefined && tile.limit !== undefined) errors.push('a limit would cut total rows and series rows alike; use one or the other');
  if (tile.limit !== undefined && !(Number.isInteger(tile.limit) && tile.limit > 0)) errors.push('limit must be a positive whole number');
  if (tile.keep !== undefined) {
    if (!tile.order) errors.push('keeps the ends of an order it does not have');
    if (tile.series !== undefined || tile.limit !== undefined) errors.push('keeps ranked ends without series or limit');
    if (!(Number.isInteger(tile.keep.ends) && tile.keep.ends > 0)) errors.push('keep.ends must be a positive whole number');
  }
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
  else if ('anyOf' in e) for (const p of e.anyOf) collectKeys(p, guard, into);
  else if ('not' in e) collectKeys(e.not, guard, into);
  else if ('mul' in e) for (const p of e.mul) collectKeys(p, guard, into);
  else if ('add' in e) for (const p of e.add) collectKeys(p, guard, into);
  else if ('firstOf' in e) for (const p of e.firstOf) collectKeys(p, guard, into);
  else if ('byEvent' in e) for (const [event, p] of Object.entries(e.byEvent)) collectKeys(p, new Set([event]), into);
}

/** Throws on an unsound definition: tiles are code, so that is a programming error caught by tests. */
export function planTile(tile: Tile): TilePlan {
  const errors = validateTile(tile);
  if (errors.length > 0) throw new Error(errors.join('; '));
  const leaves: Expr[] = [];
  const distinct = new Set<number>();
  const seen = new Map<string, number>();
  const leaf = (e: Expr, counts: 'sum' | 'installs' = 'sum'): number => {
    const key = `${counts}:${JSON.stringify(e)}`;
    let index = seen.get(key);
    if (index === undefined) {
      index = leaves.length;
      leaves.push(e);
      seen.set(key, index);
      if (counts === 'installs') distinct.add(index);
    }
    return index;
  };
  const plan = (a: Aggregate): PlannedAggregate => {
    if ('sum' in a) return { sum: leaf(a.sum) };
    if ('installs' in a) return { sum: leaf(a.installs, 'installs') };
    if ('xTotal' in a) return { xTotal: leaf(a.xTotal) };
    if ('ratio' in a) return { ratio: [plan(a.ratio[0]), plan(a.ratio[1])] };
    if ('product' in a) return { product: [plan(a.product[0]), plan(a.product[1])] };
    if ('scale' in a) {
      if (!Number.isFinite(a.scale[1])) throw new Error(`dashboard tile ${tile.id}: scale factor must be a finite number`);
      return { scale: [plan(a.scale[0]), a.scale[1]] };
    }
    if ('atLeast' in a) return { atLeast: { value: plan(a.atLeast.value), of: plan(a.atLeast.of), min: plan(a.atLeast.min) } };
    const { q, buckets } = a.quantile;
    const bounds = buckets.map((b) => b.upTo);
    const sound =
      q > 0 && q < 1 && buckets.length > 0 && bounds.every((u, i) => (u === null ? i === bounds.length - 1 : Number.isFinite(u) && u > (bounds[i - 1] ?? 0)));
    if (!sound) throw new Error(`dashboard tile ${tile.id}: a quantile needs 0 < q < 1 and ascending positive bucket bounds, only the last open`);
    return { quantile: { q, buckets: buckets.map((b) => ({ upTo: b.upTo, count: plan(b.count) })) } };
  };
  const measures = tile.measures.map((m) => ({ name: m.name, agg: plan(m.agg) }));
  const having = tile.having ? leaf(tile.having.nonZero) : null;
  const keys = new Map<string, ReadonlySet<string> | null>();
  for (const e of leaves) collectKeys(e, null, keys);
  for (const dim of [tile.x, tile.series?.by]) if (dim !== undefined && typeof dim === 'object') collectKeys(dim.expr, null, keys);
  const xTotals = new Set<number>();
  const walk = (a: PlannedAggregate): void => {
    if ('xTotal' in a) xTotals.add(a.xTotal);
    else if ('ratio' in a) a.ratio.forEach(walk);
    else if ('product' in a) a.product.forEach(walk);
    else if ('scale' in a) walk(a.scale[0]);
    else if ('atLeast' in a) [a.atLeast.value, a.atLeast.of, a.atLeast.min].forEach(walk);
    else if ('quantile' in a) for (const b of a.quantile.buckets) walk(b.count);
  };
  for (const m of measures) walk(m.agg);
  if (distinct.size > 0 && ([...xTotals].some((i) => distinct.has(i)) || tile.series?.total !== undefined)) {
    throw new Error(`dashboard tile ${tile.id}: an installs count is not a sum; it cannot feed an xTotal or a series total`);
  }
  return { tile, leaves, distinct, measures, having, xTotals: [...xTotals].sort((a, b) => a - b), keys };
}

/** A tile's result columns, in order, on every store. */
export function tileColumns(tile: Tile): string[] {
  return ['x', ...(tile.series ? ['series'] : []), ...tile.measures.map((m) => m.name), ...(tile.keep ? Object.values(RANKED_COLUMNS) : [])];
}

/**
 * The positions (1-based, in the tile's order) a tile that keeps `ends` rows at each end keeps out
 * of `of`: the ends and the median — the lower median of the values ascending, as a reader takes it.
 */
export function keptPosition(position: number, of: number, ends: number): boolean {
  return position <= ends || of - position < ends || position === medianPosition(of);
}

/** The position, in a descending order of `of` groups, of the lower median of the values ascending. */
export function medianPosition(of: number): number {
  return of - Math.floor((of - 1) / 2);
}

/** How a dialect writes the arithmetic that turns group sums into measures. */
export interface AggregateDialect {
  ratio(num: string, den: string): string;
  /** `value` where `of >= min`, else NULL. */
  atLeast(value: string, of: string, min: string): string;
  /** The value of the first branch whose condition holds, else `otherwise`. */
  cases(branches: Array<[string, string]>, otherwise: string): string;
}

/** Renders a measure over a row holding each group sum as f<i> and each x total as t<i>. */
export function renderAggregate(a: PlannedAggregate, d: AggregateDialect): string {
  if ('sum' in a) return `f${a.sum}`;
  if ('xTotal' in a) return `t${a.xTotal}`;
  if ('ratio' in a) return d.ratio(renderAggregate(a.ratio[0], d), renderAggregate(a.ratio[1], d));
  if ('product' in a) return `(${renderAggregate(a.product[0], d)}) * (${renderAggregate(a.product[1], d)})`;
  if ('scale' in a) return `(${renderAggregate(a.scale[0], d)}) * ${literalNumber(a.scale[1])}`;
  if ('atLeast' in a) return d.atLeast(renderAggregate(a.atLeast.value, d), renderAggregate(a.atLeast.of, d), renderAggregate(a.atLeast.min, d));
  return renderQuantile(a.quantile, d);
}

/** Linear interpolation inside the bucket where the running count first reaches q × total. */
function renderQuantile(quantile: { q: number; buckets: Array<{ upTo: number | null; count: PlannedAggregate }> }, d: AggregateDialect): string {
  const counts = quantile.buckets.map((b) => `(${renderAggregate(b.count, d)})`);
  const total = `(${counts.join(' + ')})`;
  const target = `(${total} * ${literalNumber(quantile.q)})`;
  const branches: Array<[string, string]> = [[`${total} = 0`, 'NULL']];
  let before = '0.0';
  let lower = 0;
  quantile.buckets.forEach((b, k) => {
    const through = k === 0 ? counts[k]! : `(${before} + ${counts[k]})`;
    const value =
      b.upTo === null ? literalNumber(lower) : `${literalNumber(lower)} + ${literalNumber(b.upTo - lower)} * ${d.ratio(`${target} - ${before}`, counts[k]!)}`;
    branches.push([`${through} >= ${target}`, value]);
    before = through;
    lower = b.upTo ?? lower;
  });
  return d.cases(branches, 'NULL');
}

/** A number literal both dialects read as a float. */
function literalNumber(n: number): string {
  const text = String(n);
  return /^-?\d+$/.test(text) ? `${text}.0` : text;
}

/** Renders an expression; only the leaves differ between dialects. */
export interface ExprDialect {
  num(key: string): string;
  str(key: string): string;
  has(key: string): string;
  flag(condition: string): string;
  /** A comparison as a condition (default `a = b`, `a != b`; PostHog's printer wraps them in ifNull). */
  equals?(a: string, b: string): string;
  notEquals?(a: string, b: string): string;
  byEvent(cases: Array<[string, string]>, otherwise: string): string;
  firstOf(parts: string[]): string;
}

/** String literals are tile constants; a backslash reads differently in the two dialects, so none is allowed. */
export function quote(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is this check's purpose.
  if (/[\\\u0000-\u001f]/.test(s)) throw new Error(`dashboard tile: literal ${JSON.stringify(s)} holds a backslash or control character`);
  return `'${s.replace(/'/g, "''")}'`;
}

export function renderExpr(e: Expr, d: ExprDialect): string {
  if ('num' in e) return d.num(assertPropertyKey(e.num));
  if ('str' in e) return d.str(assertPropertyKey(e.str));
  if ('has' in e) return d.has(assertPropertyKey(e.has));
  if ('lit' in e) return Number.isFinite(e.lit) ? String(e.lit) : '0';
  if ('text' in e) return quote(e.text);
  const equals = d.equals ?? ((a, b) => `${a} = ${b}`);
  const notEquals = d.notEquals ?? ((a, b) => `${a} != ${b}`);
  if ('eq' in e) return d.flag(equals(renderExpr(e.eq[0], d), quote(e.eq[1])));
  if ('anyOf' in e) return d.flag(e.anyOf.map((p) => notEquals(`(${renderExpr(p, d)})`, '0')).join(' OR '));
  if ('not' in e) return d.flag(equals(`(${renderExpr(e.not, d)})`, '0'));
  if ('mul' in e) return `(${renderExpr(e.mul[0], d)}) * (${renderExpr(e.mul[1], d)})`;
  if ('add' in e) return `(${e.add.map((p) => renderExpr(p, d)).join(' + ')})`;
  if ('firstOf' in e) return d.firstOf(e.firstOf.map((p) => renderExpr(p, d)));
  return d.byEvent(
    Object.entries(e.byEvent).map(([event, p]) => [quote(event), renderExpr(p, d)]),
    isStringExpr(e) ? "''" : '0',
  );
}
