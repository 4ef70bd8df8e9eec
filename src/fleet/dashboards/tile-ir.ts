/**
 * A tiny language for dashboard tiles. A tile is data: which events it reads, per-row
 * expressions over their properties, how rows are grouped, and how the per-group sums combine.
 * Two compilers read the same definition: HogQL for PostHog, SQL for the local collector.
 */
export type Expr =
  | { num: string } // numeric property; absent or not a number → 0
  | { str: string } // string property; absent → ''
  | { has: string } // 1 when the property is present
  | { lit: number }
  | { text: string } // a string constant
  | { eq: [Expr, string] } // 1 when equal
  | { anyOf: Expr[] } // 1 when any part is non-zero
  | { not: Expr } // 1 when zero
  | { mul: [Expr, Expr] }
  | { add: Expr[] }
  | { firstOf: Expr[] } // first non-empty string
  | { byEvent: Readonly<Record<string, Expr>> }; // value by event name; other events → 0 (or '')

/** What rows are grouped by: the week (Monday, UTC), the install (distinct_id) or a string expression. */
export type Dimension = 'week' | 'install' | { expr: Expr; label: string };

/**
 * How a measure is computed from per-row expressions. `sum` is the sum over the group's rows;
 * `xTotal` the sum over every row sharing the group's x, whatever its series (a share of all).
 * `atLeast` keeps `value` only where `of` ≥ `min` and is null (a gap, never a 0) elsewhere.
 * `quantile` estimates the q-quantile from exclusive histogram buckets (ascending upper bounds,
 * the last open, the first starting at 0): linear within the bucket that holds it; in the open
 * bucket, that bucket's lower bound (an "at least"). Null when the buckets are empty.
 * `installs` counts distinct installs in the group, not a sum: it cannot be added across groups,
 * so it may not feed an `xTotal` nor a tile whose series has a total row.
 */
export type Aggregate =
  | { sum: Expr }
  /** Installs (distinct_id) with at least one row where the expression is non-zero. */
  | { installs: Expr }
  | { xTotal: Expr }
  | { ratio: [Aggregate, Aggregate] }
  | { product: [Aggregate, Aggregate] }
  | { scale: [Aggregate, number] }
  | { atLeast: { value: Aggregate; of: Aggregate; min: Aggregate } }
  | { quantile: { q: number; buckets: ReadonlyArray<{ upTo: number | null; count: Aggregate }> } };

export type ChartKind = 'lines' | 'stacked-bars' | 'bars' | 'hbars' | 'stacked-hbars' | 'ranked';
export type Unit = 'count' | 'share' | 'usd' | 'tokens' | 'ms';

/**
 * A breakdown. With `total`, each x also gets a row under that label that sums every series:
 * the headline line, drawn first and boldest; the series are secondary.
 */
export interface Series {
  by: Dimension;
  total?: string;
}

export interface Measure {
  name: string;
  agg: Aggregate;
}

export interface Tile {
  id: string;
  name: string;
  /** What the tile shows, one sentence. */
  description: string;
  /** What a healthy fleet looks like on it. */
  healthy: string;
  chart: ChartKind;
  unit: Unit;
  events: readonly string[];
  x: Dimension;
  series?: Series;
  measures: readonly Measure[];
  /** Measures drawn on the chart (default: all); the others are context for tables. */
  plot?: readonly string[];
  /** Groups whose sum of this is zero are left out: an unknown ratio is not a 0. */
  having?: { nonZero: Expr };
  order?: { by: string; desc?: boolean };
  limit?: number;
  /**
   * A ranked tile over many groups (an install each) keeps its `ends` highest and `ends` lowest
   * groups by `order`, and the median one; every row says where it stands (RANKED_COLUMNS). A
   * fleet's thousands of installs are more bars than a chart has pixels, and PostHog cuts a query
   * without LIMIT at 100 rows, so every store keeps the same few rows and the same counts.
   */
  keep?: { ends: number };
}

export const num = (key: string): Expr => ({ num: key });
export const str = (key: string): Expr => ({ str: key });
export const has = (key: string): Expr => ({ has: key });
export const lit = (value: number): Expr => ({ lit: value });
export const text = (value: string): Expr => ({ text: value });
export const eq = (e: Expr, value: string): Expr => ({ eq: [e, value] });
export const anyOf = (...parts: Expr[]): Expr => ({ anyOf: parts });
export const not = (e: Expr): Expr => ({ not: e });
export const mul = (a: Expr, b: Expr): Expr => ({ mul: [a, b] });
export const add = (...parts: Expr[]): Expr => ({ add: parts });
export const firstOf = (...parts: Expr[]): Expr => ({ firstOf: parts });
export const byEvent = (cases: Record<string, Expr>): Expr => ({ byEvent: cases });
export const sum = (e: Expr): Aggregate => ({ sum: e });
export const installs = (where: Expr): Aggregate => ({ installs: where });
export const xTotal = (e: Expr): Aggregate => ({ xTotal: e });
export const ratio = (a: Aggregate, b: Aggregate): Aggregate => ({ ratio: [a, b] });
export const product = (a: Aggregate, b: Aggregate): Aggregate => ({ product: [a, b] });
export const scale = (a: Aggregate, factor: number): Aggregate => ({ scale: [a, factor] });
export const atLeast = (value: Aggregate, of: Aggregate, min: Aggregate): Aggregate => ({ atLeast: { value, of, min } });
export const quantile = (q: number, buckets: ReadonlyArray<{ upTo: number | null; count: Aggregate }>): Aggregate => ({ quantile: { q, buckets } });

/** Strings come from `str`/`firstOf` (or a `byEvent` of them); everything else is a number. */
export function isStringExpr(e: Expr): boolean {
  if ('str' in e || 'firstOf' in e || 'text' in e) return true;
  if ('byEvent' in e) return Object.values(e.byEvent).some(isStringExpr);
  return false;
}

/** The expression as it reads for one event: every `byEvent` resolved to that event's case (or 0 / ''). */
export function forEvent(e: Expr, event: string): Expr {
  if ('byEvent' in e) {
    const chosen = Object.hasOwn(e.byEvent, event) ? e.byEvent[event]! : isStringExpr(e) ? text('') : lit(0);
    return forEvent(chosen, event);
  }
  if ('eq' in e) return { eq: [forEvent(e.eq[0], event), e.eq[1]] };
  if ('anyOf' in e) return { anyOf: e.anyOf.map((p) => forEvent(p, event)) };
  if ('not' in e) return { not: forEvent(e.not, event) };
  if ('mul' in e) return { mul: [forEvent(e.mul[0], event), forEvent(e.mul[1], event)] };
  if ('add' in e) return { add: e.add.map((p) => forEvent(p, event)) };
  if ('firstOf' in e) return { firstOf: e.firstOf.map((p) => forEvent(p, event)) };
  return e;
}

/** The property keys an expression reads. */
export function keysOf(e: Expr, into = new Set<string>()): Set<string> {
  if ('num' in e) into.add(e.num);
  else if ('str' in e) into.add(e.str);
  else if ('has' in e) into.add(e.has);
  else if ('eq' in e) keysOf(e.eq[0], into);
  else if ('not' in e) keysOf(e.not, into);
  else if ('anyOf' in e || 'add' in e || 'mul' in e || 'firstOf' in e)
    for (const p of 'anyOf' in e ? e.anyOf : 'add' in e ? e.add : 'mul' in e ? e.mul : e.firstOf) keysOf(p, into);
  else if ('byEvent' in e) for (const p of Object.values(e.byEvent)) keysOf(p, into);
  return into;
}
