import type { Unit } from './tile-ir.js';

/** Round axis steps: 1, 2, 2.5 or 5 × 10ⁿ. */
function niceStep(rough: number): number {
  if (!(rough > 0) || !Number.isFinite(rough)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((v) => v >= rough * 0.999) ?? 10 * magnitude;
}

/** An axis from `min` to `max` (both widened to include 0) in about `count` round steps. */
export function niceScale(min: number, max: number, count = 4): { lo: number; hi: number; ticks: number[] } {
  const low = Math.min(0, min);
  const high = Math.max(0, max);
  if (high - low <= 0) return { lo: 0, hi: 1, ticks: [0, 0.25, 0.5, 0.75, 1] };
  const step = niceStep((high - low) / count);
  const lo = Math.floor(low / step + 1e-9) * step;
  const hi = Math.ceil(high / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let v = lo; v <= hi + step / 2; v += step) ticks.push(Math.abs(v) < step / 1e6 ? 0 : v);
  return { lo, hi, ticks };
}

const trim = (s: string) => (s.includes('.') ? s.replace(/\.?0+$/, '') : s);

function compact(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${trim((v / 1e9).toFixed(1))}B`;
  if (a >= 1e6) return `${trim((v / 1e6).toFixed(1))}M`;
  if (a >= 1e4) return `${trim((v / 1e3).toFixed(0))}k`;
  if (a >= 1e3) return `${trim((v / 1e3).toFixed(1))}k`;
  if (a >= 10 || a === 0) return String(Math.round(v));
  return trim(v.toPrecision(2));
}

/** A value as people read it: 12.3 %, $0.0042, 48k tokens. */
export function formatValue(v: number | null | undefined, unit: Unit): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  if (unit === 'share') {
    const pct = v * 100;
    const a = Math.abs(pct);
    return `${a === 0 ? '0' : a >= 10 ? pct.toFixed(0) : a >= 1 ? trim(pct.toFixed(1)) : trim(pct.toPrecision(2))} %`;
  }
  if (unit === 'usd') {
    const a = Math.abs(v);
    const sign = v < 0 ? '-' : '';
    if (a === 0) return '$0';
    if (a >= 1000) return `${sign}$${compact(a)}`;
    if (a >= 1) return `${sign}$${a.toFixed(2)}`;
    return `${sign}$${trim(a.toPrecision(2))}`;
  }
  if (unit === 'ms') return `${compact(v)} ms`;
  return compact(v);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-06-01` → `Jun 1`; anything else is shown as it is. */
export function formatWeek(x: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(x);
  if (!m) return x;
  return `${MONTHS[Number(m[2]) - 1] ?? m[2]} ${Number(m[3])}`;
}

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** Shortens a label to `max` characters with an ellipsis. */
export function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, Math.max(1, max - 1))}…` : s;
}
