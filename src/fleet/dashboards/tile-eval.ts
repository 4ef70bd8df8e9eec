import type { CollectedEvent } from '../collector/collected-event.js';
import { MONDAY_OFFSET_MS, WEEK_MS } from './compile-sqlite.js';
import { propertyText, tileNumber } from './posthog-property.js';
import { isStringExpr, type Dimension, type Expr } from './tile-ir.js';
import type { TilePlan } from './tile-plan.js';

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

type Row = Pick<CollectedEvent, 'event' | 'distinctId' | 'timestamp' | 'properties'>;
type Value = number | string;
type Fn = (row: Row) => Value;

/** The property as PostHog reads it (a String or NULL); see posthog-property.ts. */
const text = (properties: Record<string, unknown>, key: string): string | null => propertyText(Object.hasOwn(properties, key) ? properties[key] : undefined);

/** Numeric operands are numbers in every tile; a string operand would be a definition error, read as 0. */
const asNumber = (v: Value): number => (typeof v === 'number' ? v : 0);

function compileExpr(e: Expr): Fn {
  if ('num' in e) {
    const key = e.num;
    return (row) => tileNumber(text(row.properties, key));
  }
  if ('str' in e) {
    const key = e.str;
    return (row) => text(row.properties, key) ?? '';
  }
  if ('has' in e) {
    const key = e.has;
    return (row) => (text(row.properties, key) === null ? 0 : 1);
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
    const [inner, literal] = [compileExpr(e.eq[0]), e.eq[1]];
    return (row) => (inner(row) === literal ? 1 : 0);
  }
  if ('anyOf' in e) {
    const parts = e.anyOf.map((p) => compileExpr(p));
    return (row) => (parts.some((p) => p(row) !== 0) ? 1 : 0);
  }
  if ('not' in e) {
    const inner = compileExpr(e.not);
    return (row) => (inner(row) === 0 ? 1 : 0);
  }
  if ('mul' in e) {
    const [a, b] = [compileExpr(e.mul[0]), compileExpr(e.mul[1])];
    return (row) => asNumber(a(row)) * asNumber(b(row));
  }
  if ('add' in e) {
    const parts = e.add.map((p) => compileExpr(p));
    return (row) => parts.reduce((n: number, p) => n + asNumber(p(row)), 0);
  }
  if ('firstOf' in e) {
    const parts = e.firstOf.map((p) => compileExpr(p));
    return (row) => {
      for (const p of parts) {
        const v = p(row);
        if (v !== '') return v;
      }
      return '';
    };
  }
  const cases = new Map(Object.entries(e.byEvent).map(([event, p]) => [event, compileExpr(p)]));
  const otherwise = isStringExpr(e) ? '' : 0;
  return (row) => cases.get(row.event)?.(row) ?? otherwise;
}

function compileDimension(dim: Dimension | undefined): (row: Row) => number | string {
  if (dim === undefined) return () => '';
  // SQLite's integer division truncates toward zero; so does Math.trunc.
  if (dim === 'week') return (row) => Math.trunc((row.timestamp - MONDAY_OFFSET_MS) / WEEK_MS) * WEEK_MS + MONDAY_OFFSET_MS;
  if (dim === 'install') return (row) => row.distinctId;
  const f = compileExpr(dim.expr);
  // Dimensions are string expressions (the plan's key reads); a number is shown as ClickHouse writes it.
  return (row) => {
    const v = f(row);
    return typeof v === 'number' ? String(v) : v;
  };
}

/**
 * A tile's per-event evaluator, the JavaScript twin of the compiled SQL's inner pass: null for an
 * event the tile does not read, else the group and each leaf's value for that event.
 */
export function compileTileEvaluator(plan: TilePlan): (row: Row) => GroupValues | null {
  const events = new Set(plan.tile.events);
  const x = compileDimension(plan.tile.x);
  const series = compileDimension(plan.tile.series?.by);
  const leaves = plan.leaves.map((leaf, i) => {
    const f = compileExpr(leaf);
    return plan.distinct.has(i) ? (row: Row) => (asNumber(f(row)) !== 0 ? 1 : 0) : (row: Row) => asNumber(f(row));
  });
  return (row) => {
    if (!events.has(row.event)) return null;
    return { xk: x(row), series: String(series(row)), values: leaves.map((leaf) => leaf(row)), install: row.distinctId };
  };
}
