import { clip, escapeXml as esc, formatValue, formatWeek, niceScale } from './chart-format.js';
import { rankedCounts } from './ranked-counts.js';
import { RANKED_COLUMNS } from './tile-plan.js';
import type { TileResult } from './tile-result.js';

/**
 * Server-drawn charts: plain SVG, no script, no external resource. Every data mark has class
 * "mark"; a point or bar also names what it draws (data-series, data-x, data-value), so a reader
 * of the page — a screen reader's tooltip aside, a test in a real browser — can check the chart
 * against the tile's numbers.
 */

const W = 600;
const PALETTE = ['#2563eb', '#d97706', '#059669', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#ea580c', '#4f46e5', '#0d9488', '#a16207'];
/** The slices a reader looks for keep one colour on every tile. */
const FIXED: Readonly<Record<string, string>> = { poisoned: '#b91c1c', other: '#94a3b8', '(unknown)': '#94a3b8' };
const HEADLINE_COLOR = '#0f172a';
const dataOf = (series: string, x: string, value: number) => `data-series="${esc(series)}" data-x="${esc(x)}" data-value="${value}"`;
const AXIS = 'font-size="11" fill="#64748b"';

export interface ChartSeries {
  name: string;
  color: string;
  values: Array<number | null>;
  /** The headline series (a tile's series total): drawn first in the legend and boldest. */
  headline?: boolean;
}

export interface ChartData {
  xs: string[];
  series: ChartSeries[];
}

const naturally = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

/** Rows → an ordered x axis and one series per plotted measure (or per series value, for a breakdown). */
export function chartData(result: TileResult): ChartData {
  const { tile, rows } = result;
  const plot = tile.plot ?? tile.measures.map((m) => m.name);
  const xs = [...new Set(rows.map((r) => String(r.x ?? '')))];
  const at = new Map(xs.map((x, i) => [x, i]));
  const value = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  let named: Array<[string, Array<number | null>]>;
  if (tile.series) {
    const measure = plot[0]!;
    const bySeries = new Map<string, Array<number | null>>();
    for (const row of rows) {
      const name = String(row.series ?? '') || '(unknown)';
      if (!bySeries.has(name))
        bySeries.set(
          name,
          xs.map(() => null),
        );
      bySeries.get(name)![at.get(String(row.x ?? ''))!] = value(row[measure]);
    }
    const total = tile.series.total;
    named = [...bySeries.entries()].sort(([a], [b]) => (a === total ? -1 : b === total ? 1 : naturally(a, b)));
  } else {
    named = plot.map((m) => [m, xs.map((x) => value(rows.find((r) => String(r.x ?? '') === x)?.[m]))]);
  }
  let k = 0;
  return {
    xs,
    series: named.map(([name, values]) =>
      tile.series?.total !== undefined && name === tile.series.total
        ? { name, values, color: HEADLINE_COLOR, headline: true }
        : { name, values, color: FIXED[name] ?? PALETTE[k++ % PALETTE.length]! },
    ),
  };
}

function legend(series: ChartSeries[], top: number): { svg: string; height: number } {
  if (series.length < 2) return { svg: '', height: 0 };
  let x = 0;
  let row = 0;
  const items = series.map((s) => {
    const label = clip(s.name, 28);
    const width = 18 + label.length * 6.4 + 14;
    if (x + width > W - 12 && x > 0) {
      x = 0;
      row += 1;
    }
    const item = `<g transform="translate(${12 + x},${top + row * 17})"><rect width="11" height="11" rx="2" fill="${s.color}"/><text x="16" y="10" font-size="11.5" fill="#334155">${esc(label)}</text></g>`;
    x += width;
    return item;
  });
  return { svg: items.join(''), height: (row + 1) * 17 + 4 };
}

const wrap = (name: string, height: number, body: string) =>
  `<svg viewBox="0 0 ${W} ${Math.ceil(height)}" width="${W}" height="${Math.ceil(height)}" role="img" aria-label="${esc(name)}" font-family="system-ui, sans-serif">${body}</svg>`;

function vertical(result: TileResult, data: ChartData): string {
  const { tile } = result;
  const { xs, series } = data;
  const left = 62;
  const top = 10;
  const plotW = W - left - 14;
  const plotH = 180;
  const stacked = tile.chart === 'stacked-bars';
  const ranked = tile.chart === 'ranked';
  const totals = xs.map((_, i) => series.reduce((n, s) => n + Math.max(0, s.values[i] ?? 0), 0));
  const all = series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const scale = niceScale(Math.min(0, ...all), stacked ? Math.max(0, ...totals) : Math.max(0, ...all));
  const y = (v: number) => top + plotH - ((v - scale.lo) / (scale.hi - scale.lo)) * plotH;
  const step = plotW / Math.max(1, xs.length);
  const parts: string[] = [];
  for (const t of scale.ticks) {
    parts.push(`<line x1="${left}" x2="${W - 14}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="${t === 0 ? '#94a3b8' : '#e2e8f0'}"/>`);
    parts.push(`<text x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" ${AXIS}>${esc(formatValue(t, tile.unit))}</text>`);
  }
  const labelY = top + plotH + 16;
  if (ranked) {
    const noun = tile.x === 'install' ? 'installs' : 'groups';
    const counts = rankedCounts(result);
    const label =
      counts && counts.of > xs.length
        ? `${counts.of} ${noun}: the ${tile.keep!.ends} highest, the median, the ${tile.keep!.ends} lowest`
        : `${xs.length} ${noun}, highest first`;
    parts.push(`<text x="${left + plotW / 2}" y="${labelY}" text-anchor="middle" ${AXIS}>${label}</text>`);
    // Where the kept ranks jump (ends to median to ends), a dashed line says groups are left out.
    const positions = result.rows.map((r) => Number(r[RANKED_COLUMNS.position]));
    positions.forEach((p, i) => {
      if (i === 0 || !(p > positions[i - 1]! + 1)) return;
      const gx = (left + step * i).toFixed(1);
      parts.push(`<line class="rank-gap" x1="${gx}" x2="${gx}" y1="${top}" y2="${top + plotH}" stroke="#94a3b8" stroke-dasharray="3 3"/>`);
    });
  } else {
    const every = Math.max(1, Math.ceil(xs.length / Math.floor(plotW / 56)));
    xs.forEach((x, i) => {
      if (i % every !== 0) return;
      const label = tile.x === 'week' ? formatWeek(x) : clip(x, Math.max(4, Math.floor((step * every) / 6.5)));
      parts.push(`<text x="${(left + step * (i + 0.5)).toFixed(1)}" y="${labelY}" text-anchor="middle" ${AXIS}><title>${esc(x)}</title>${esc(label)}</text>`);
    });
  }
  const title = (s: ChartSeries, i: number, v: number) =>
    `<title>${esc(`${series.length > 1 ? `${s.name} · ` : ''}${tile.x === 'week' ? `week of ${xs[i]}` : xs[i]}: ${formatValue(v, tile.unit)}`)}</title>`;
  if (tile.chart === 'lines') {
    // Secondary lines first, so the headline line is drawn over them.
    const secondaryFirst = [...series].sort((a, b) => Number(a.headline ?? false) - Number(b.headline ?? false));
    for (const s of secondaryFirst) {
      const points = s.values.map((v, i) => (v === null ? null : ([left + step * (i + 0.5), y(v)] as const)));
      const runs: string[][] = [[]];
      for (const p of points) {
        if (p) runs[runs.length - 1]!.push(`${p[0].toFixed(1)},${p[1].toFixed(1)}`);
        else runs.push([]);
      }
      const stroke = s.headline
        ? 'stroke-width="3.2"'
        : series.some((o) => o.headline)
          ? 'stroke-width="1.6" stroke-opacity="0.8" stroke-dasharray="5 3"'
          : 'stroke-width="2.2"';
      for (const run of runs)
        if (run.length > 1)
          parts.push(`<polyline class="mark" data-series="${esc(s.name)}" fill="none" stroke="${s.color}" ${stroke} points="${run.join(' ')}"/>`);
      points.forEach((p, i) => {
        if (p)
          parts.push(
            `<circle class="mark" ${dataOf(s.name, xs[i]!, s.values[i]!)} cx="${p[0].toFixed(1)}" cy="${p[1].toFixed(1)}" r="${s.headline ? 3.6 : 2.4}" fill="${s.color}">${title(s, i, s.values[i]!)}</circle>`,
          );
      });
    }
  } else {
    const gap = ranked ? Math.min(2, step * 0.2) : step * 0.22;
    const barW = stacked || series.length === 1 ? step - gap : (step - gap) / series.length;
    xs.forEach((_, i) => {
      let base = 0;
      series.forEach((s, k) => {
        const v = s.values[i];
        if (v === null || v === undefined || v === 0) return;
        const x0 = left + step * i + gap / 2 + (stacked || series.length === 1 ? 0 : barW * k);
        const from = stacked ? base : 0;
        const to = stacked ? base + Math.max(0, v) : v;
        if (stacked) base = to;
        const color = ranked && v < 0 ? '#dc2626' : s.color;
        parts.push(
          `<rect class="mark" ${dataOf(s.name, xs[i]!, v)} x="${x0.toFixed(1)}" y="${Math.min(y(from), y(to)).toFixed(1)}" width="${Math.max(0.6, barW).toFixed(1)}" height="${Math.max(0.8, Math.abs(y(to) - y(from))).toFixed(1)}" fill="${color}">${title(s, i, v)}</rect>`,
        );
      });
    });
  }
  const key = legend(series, top + plotH + 28);
  return wrap(tile.name, top + plotH + 28 + key.height + 4, parts.join('') + key.svg);
}

function horizontal(result: TileResult, data: ChartData): string {
  const { tile } = result;
  const { xs, series } = data;
  const labelW = 190;
  const top = 6;
  const rowH = 24;
  const plotW = W - labelW - 70;
  const stacked = tile.chart === 'stacked-hbars';
  const totals = xs.map((_, i) => series.reduce((n, s) => n + Math.max(0, s.values[i] ?? 0), 0));
  const scale = niceScale(0, stacked ? Math.max(...totals) : Math.max(0, ...series.flatMap((s) => s.values.map((v) => v ?? 0))));
  const x = (v: number) => labelW + ((v - scale.lo) / (scale.hi - scale.lo)) * plotW;
  const plotH = xs.length * rowH;
  const parts: string[] = [];
  for (const t of scale.ticks) {
    parts.push(`<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${top}" y2="${top + plotH}" stroke="${t === 0 ? '#94a3b8' : '#e2e8f0'}"/>`);
    parts.push(`<text x="${x(t).toFixed(1)}" y="${top + plotH + 15}" text-anchor="middle" ${AXIS}>${esc(formatValue(t, tile.unit))}</text>`);
  }
  xs.forEach((label, i) => {
    const cy = top + i * rowH + rowH / 2;
    parts.push(
      `<text x="${labelW - 8}" y="${cy + 4}" text-anchor="end" font-size="12" fill="#1e293b"><title>${esc(label)}</title>${esc(clip(label || '(unknown)', 28))}</text>`,
    );
    let base = 0;
    for (const s of series) {
      const v = s.values[i];
      if (v === null || v === undefined || v <= 0) continue;
      const from = stacked ? base : 0;
      base = from + v;
      parts.push(
        `<rect class="mark" ${dataOf(s.name, label, v)} x="${x(from).toFixed(1)}" y="${(cy - 8).toFixed(1)}" width="${Math.max(0.8, x(from + v) - x(from)).toFixed(1)}" height="16" fill="${s.color}"><title>${esc(`${label}${series.length > 1 ? ` · ${s.name}` : ''}: ${formatValue(v, tile.unit)}`)}</title></rect>`,
      );
    }
    if (!stacked && series.length === 1)
      parts.push(
        `<text x="${(x(base) + 5).toFixed(1)}" y="${cy + 4}" font-size="11.5" fill="#334155">${esc(formatValue(series[0]!.values[i], tile.unit))}</text>`,
      );
  });
  const key = legend(series, top + plotH + 26);
  return wrap(tile.name, top + plotH + 26 + key.height + 4, parts.join('') + key.svg);
}

/** One tile as an SVG chart, or a short "no data" panel. */
export function renderChart(result: TileResult): string {
  const data = chartData(result);
  if (data.xs.length === 0 || data.series.length === 0) {
    return wrap(result.tile.name, 120, `<text x="${W / 2}" y="64" text-anchor="middle" font-size="13" fill="#64748b">no data yet</text>`);
  }
  return result.tile.chart === 'hbars' || result.tile.chart === 'stacked-hbars' ? horizontal(result, data) : vertical(result, data);
}
