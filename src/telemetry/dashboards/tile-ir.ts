/**
 * A tiny language for dashboard tiles, compiled to HogQL (PostHog) and to SQLite (the local
 * collector). A tile is defined once; both compilers read the same definition.
 */
export type Expr =
  | { num: string } // numeric property; absent → 0
  | { str: string } // string property; absent → ''
  | { lit: number }
  | { isEvent: string } // 1 when the event name matches
  | { eq: [Expr, string] } // 1 when equal
  | { either: [Expr, Expr] } // 1 when either is non-zero
  | { mul: [Expr, Expr] }
  | { add: Expr[] }
  | { firstOf: Expr[] }; // first non-empty string

export type Dimension = 'week' | 'install' | { expr: Expr; label: string };

export type Aggregate = { sum: Expr } | { ratio: [Aggregate, Aggregate] } | { product: [Aggregate, Aggregate] };

export interface Tile {
  id: string;
  name: string;
  caption: string;
  chart: 'lines' | 'stacked-bars' | 'bars';
  events: readonly string[];
  x: Dimension;
  series?: Dimension;
  measures: ReadonlyArray<{ name: string; agg: Aggregate }>;
  /** Rows with a zero denominator or no data are left out rather than shown as 0. */
  having?: { nonZero: Expr };
}

export const num = (key: string): Expr => ({ num: key });
export const str = (key: string): Expr => ({ str: key });
export const isEvent = (name: string): Expr => ({ isEvent: name });
export const eq = (e: Expr, value: string): Expr => ({ eq: [e, value] });
export const when = (event: string, then: Expr): Expr => ({ mul: [isEvent(event), then] });
export const add = (...parts: Expr[]): Expr => ({ add: parts });
export const sum = (e: Expr): Aggregate => ({ sum: e });
