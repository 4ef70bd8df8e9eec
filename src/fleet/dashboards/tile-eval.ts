import type { CollectedEvent } from '../collector/collected-event.js';
import { MONDAY_OFFSET_MS, WEEK_MS } from './compile-sqlite.js';
import { isStringExpr, type Dimension, type Expr } from './tile-ir.js';
import type { TilePlan } from './tile-plan.js';
import { castReal, castText, sqlValueOf, type SqlValue } from './sql-values.js';

/**
 * One event's contribution to a tile: its group and the value of each leaf (f0, f1, …). For an
 * installs leaf the value is 1 when the event counts for its install (the store adds it once per
 * install and group).
 */
export interface GroupValues {
  xk: number | string;
  series: string;
  values: number[];
  install: string;
}

export interface EvalOptions {
  /** SQLite's text for a REAL (only odd input needs it: a number where a string is read). */
  realText: (n: number) => string;
}

type Row = Pick<CollectedEvent, 'event' | 'distinctId' | 'timestamp' | 'properties'>;
type Fn = (row: Row) => SqlValue;

const own = (properties: Record<string, unknown>, key: string): unknown => (Object.hasOwn(properties, key) ? properties[key] : undefined);

/** A number as SQLite's arithmetic reads it (text by its numeric prefix). */
const asNumber = (v: SqlValue): number => (typeof v === 'number' ? v : v === null ? 0 : castReal(v)!);

function compileExpr(e: Expr, o: EvalOptions): Fn {
  if ('num' in e) {
    const key = e.num;
    return (row) => castReal(sqlValueOf(own(row.properties, key))) ?? 0;
  }
  if ('str' in e) {
    const key = e.str;
    return (row) => castText(sqlValueOf(own(row.properties, key)), o.realText) ?? '';
  }
  if ('has' in e) {
    const key = e.has;
    return (row) => (sqlValueOf(own(row.properties, key)) === null ? 0 : 1);
  }
  if ('lit' in e) {
    const value = Number.isFinite(e.lit) ? e.lit : 0;
    return () => value;
  }
  if ('text' in e) {
    const value = e.text;
    return () => value;
  }
  if ('eq' in e) {
    const [inner, literal] = [compileExpr(e.eq[0], o), e.eq[1]];
    // A number never equals a text literal in SQLite (no affinity on expressions).
    return (row) => (inner(row) === literal ? 1 : 0);
  }
  if ('anyOf' in e) {
    const parts = e.anyOf.map((p) => compileExpr(p, o));
    return (row) => (parts.some((p) => p(row) !== 0) ? 1 : 0);
  }
  if ('not' in e) {
    const inner = compileExpr(e.not, o);
    return (row) => (inner(row) === 0 ? 1 : 0);
  }
  if ('mul' in e) {
    const [a, b] = [compileExpr(e.mul[0], o), compileExpr(e.mul[1], o)];
    return (row) => asNumber(a(row)) * asNumber(b(row));
  }
  if ('add' in e) {
    const parts = e.add.map((p) => compileExpr(p, o));
    return (row) => parts.reduce((n: number, p) => n + asNumber(p(row)), 0);
  }
  if ('firstOf' in e) {
    const parts = e.firstOf.map((p) => compileExpr(p, o));
    return (row) => {
      for (const p of parts) {
        const v = p(row);
        if (v !== '' && v !== null) return v;
      }
      return '';
    };
  }
  const cases = new Map(Object.entries(e.byEvent).map(([event, p]) => [event, compileExpr(p, o)]));
  const otherwise = isStringExpr(e) ? '' : 0;
  return (row) => cases.get(row.event)?.(row) ?? otherwise;
}

function compileDimension(dim: Dimension | undefined, o: EvalOptions): (row: Row) => number | string {
  if (dim === undefined) return () => '';
  // SQLite's integer division truncates toward zero; so does Math.trunc.
  if (dim === 'week') return (row) => Math.trunc((row.timestamp - MONDAY_OFFSET_MS) / WEEK_MS) * WEEK_MS + MONDAY_OFFSET_MS;
  if (dim === 'install') return (row) => row.distinctId;
  const f = compileExpr(dim.expr, o);
  return (row) => {
    const v = f(row);
    // The SQL groups on `coalesce(CAST(… AS TEXT), '')` strings; a numeric dimension is not used by any tile.
    return typeof v === 'number' ? castText(v, o.realText)! : (v ?? '');
  };
}

/**
 * A tile's per-event evaluator, the JavaScript twin of the compiled SQL's inner pass: null for an
 * event the tile does not read, else the group and each leaf's value for that event.
 */
export function compileTileEvaluator(plan: TilePlan, o: EvalOptions): (row: Row) => GroupValues | null {
  const events = new Set(plan.tile.events);
  const x = compileDimension(plan.tile.x, o);
  const series = compileDimension(plan.tile.series?.by, o);
  const leaves = plan.leaves.map((leaf, i) => {
    const f = compileExpr(leaf, o);
    return plan.distinct.has(i) ? (row: Row) => (asNumber(f(row)) !== 0 ? 1 : 0) : (row: Row) => asNumber(f(row));
  });
  return (row) => {
    if (!events.has(row.event)) return null;
    return { xk: x(row), series: String(series(row)), values: leaves.map((leaf) => leaf(row)), install: row.distinctId };
  };
}
