import type { TileResult } from './run-tiles.js';

const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#475569', '#b91c1c'];
const W = 560;
const H = 240;
const PAD = { left: 56, right: 12, top: 12, bottom: 48 };

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const fmt = (v: number) => (Math.abs(v) >= 1000 ? `${Math.round(v / 100) / 10}k` : Math.abs(v) < 1 && v !== 0 ? String(Number(v.toPrecision(2))) : String(Math.round(v * 100) / 100));

interface Series {
  name: string;
  values: Map<string, number>;
}

/** The smallest 1, 2, 2.5 or 5 × 10ⁿ at or above the value, so the four grid lines read as round numbers. */
function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((v) => v >= value) ?? 10 * magnitude);
}

/** Turns a tile's rows into named series over an ordered x axis. */
function toSeries(result: TileResult): { xs: string[]; series: Series[] } {
  const xs = [...new Set(result.rows.map((r) => String(r.x)))];
  const measureNames = result.columns.filter((c) => c !== 'x' && c !== 'series');
  const series = new Map<string, Series>();
  for (const row of result.rows) {
    for (const measure of measureNames) {
      const name = result.columns.includes('series') ? String(row.series || '(unknown)') : measure;
      const value = row[measure];
      if (typeof value !== 'number') continue;
      if (!series.has(name)) series.set(name, { name, values: new Map() });
      series.get(name)!.values.set(String(row.x), value);
    }
  }
  return { xs, series: [...series.values()] };
}

/** A server-drawn SVG chart: no script, no CDN. */
export function renderChart(result: TileResult): string {
  const { xs, series } = toSeries(result);
  if (xs.length === 0 || series.length === 0) {
    return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(result.tile.name)}: no data"><text x="${W / 2}" y="${H / 2}" text-anchor="middle" fill="#64748b">no data yet</text></svg>`;
  }
  const stacked = result.tile.chart === 'stacked-bars';
  const totals = xs.map((x) => (stacked ? series.reduce((n, s) => n + Math.max(0, s.values.get(x) ?? 0), 0) : Math.max(...series.map((s) => s.values.get(x) ?? 0))));
  const max = niceCeiling(Math.max(...totals, 0));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / xs.length;
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const parts: string[] = [];
  for (let i = 0; i <= 4; i += 1) {
    const v = (max * i) / 4;
    parts.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v)}" y2="${y(v)}" stroke="#e2e8f0"/><text x="${PAD.left - 6}" y="${y(v) + 4}" text-anchor="end" font-size="10" fill="#64748b">${fmt(v)}</text>`);
  }
  const labelEvery = Math.ceil(xs.length / 8);
  const maxChars = Math.max(4, Math.floor((step * labelEvery) / 6) - 1);
  xs.forEach((x, i) => {
    if (i % labelEvery === 0) parts.push(`<text x="${PAD.left + step * (i + 0.5)}" y="${H - PAD.bottom + 14}" text-anchor="middle" font-size="10" fill="#475569"><title>${esc(x)}</title>${esc(x.length > maxChars ? `${x.slice(0, maxChars - 1)}…` : x)}</text>`);
  });
  if (result.tile.chart === 'lines') {
    series.forEach((s, k) => {
      const points = xs.flatMap((x, i) => (s.values.has(x) ? [`${(PAD.left + step * (i + 0.5)).toFixed(1)},${y(s.values.get(x)!).toFixed(1)}`] : []));
      parts.push(`<polyline class="mark" fill="none" stroke="${PALETTE[k % PALETTE.length]}" stroke-width="2" points="${points.join(' ')}"/>`);
      for (const p of points) parts.push(`<circle class="mark" cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="2.5" fill="${PALETTE[k % PALETTE.length]}"/>`);
    });
  } else {
    const barW = stacked ? step * 0.7 : (step * 0.8) / series.length;
    xs.forEach((x, i) => {
      let base = 0;
      series.forEach((s, k) => {
        const v = Math.max(0, s.values.get(x) ?? 0);
        if (v === 0) return;
        const left = PAD.left + step * i + (stacked ? step * 0.15 : step * 0.1 + barW * k);
        const top = stacked ? y(base + v) : y(v);
        const height = stacked ? y(base) - y(base + v) : y(0) - y(v);
        parts.push(`<rect class="mark" x="${left.toFixed(1)}" y="${top.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(0.5, height).toFixed(1)}" fill="${PALETTE[k % PALETTE.length]}"><title>${esc(`${s.name} @ ${x}: ${fmt(v)}`)}</title></rect>`);
        if (stacked) base += v;
      });
    });
  }
  const legend = series
    .slice(0, 10)
    .map((s, k) => `<g transform="translate(${PAD.left + (k % 5) * 100},${H - 22 + Math.floor(k / 5) * 12})"><rect width="8" height="8" fill="${PALETTE[k % PALETTE.length]}"/><text x="11" y="8" font-size="10" fill="#334155">${esc(s.name.slice(0, 14))}</text></g>`)
    .join('');
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(result.tile.name)}">${parts.join('')}${legend}</svg>`;
}

export function renderDashboardPage(results: TileResult[], meta: { events: number; generatedAt: string }): string {
  const tiles = results
    .map((r) => `<section class="tile" data-tile="${r.tile.id}"><h2>${esc(r.tile.name)}</h2>${renderChart(r)}<p class="caption">${esc(r.tile.caption)}</p></section>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>memtrace fleet dashboard</title><style>
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;background:#f8fafc;color:#0f172a}
h1{font-size:20px;margin:0 0 4px}.meta{color:#64748b;font-size:13px;margin-bottom:16px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:16px}
.tile{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:12px 16px}
.tile h2{font-size:15px;margin:0 0 8px}.caption{color:#475569;font-size:12px;margin:6px 0 0}svg{width:100%;height:auto}
</style></head><body><h1>memtrace fleet dashboard</h1><div class="meta">${meta.events} events in the local collector · generated ${esc(meta.generatedAt)} · the same tiles run in PostHog as HogQL</div><div class="grid">
${tiles}
</div></body></html>`;
}
