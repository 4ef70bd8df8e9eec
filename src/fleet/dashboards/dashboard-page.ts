import { chartData, renderChart } from './chart-svg.js';
import { escapeXml as esc, formatValue, formatWeek } from './chart-format.js';
import { rankedCounts } from './ranked-counts.js';
import { RANKED_COLUMNS } from './tile-plan.js';
import type { TileResult } from './tile-result.js';

/** One line that answers the tile's question before the chart is read. */
function headline(result: TileResult): string | null {
  const { tile } = result;
  const { xs, series } = chartData(result);
  if (xs.length === 0 || series.length === 0) return null;
  const total = (i: number) => series.reduce((n, s) => n + (s.values[i] ?? 0), 0);
  const ranked = rankedCounts(result);
  if (ranked) {
    // A tile keeps ranked ends only in an order (tile-plan.ts), so the median is of the ordered measure.
    const median = result.rows.find((r) => r[RANKED_COLUMNS.position] === ranked.medianPosition)?.[tile.order!.by];
    return `${ranked.aboveZero} of ${ranked.of} above zero · median ${formatValue(typeof median === 'number' ? median : null, tile.unit)}`;
  }
  if (tile.chart === 'ranked') {
    const values = series[0]!.values.filter((v): v is number => v !== null).sort((a, b) => a - b);
    const median = values[Math.floor((values.length - 1) / 2)] ?? 0;
    return `${values.filter((v) => v > 0).length} of ${values.length} above zero · median ${formatValue(median, tile.unit)}`;
  }
  if (tile.x === 'week' && tile.chart === 'lines') {
    // Lines are read per line: the headline line alone when there is one, else each line's latest value.
    const last = xs.length - 1;
    const lead = series.find((s) => s.headline);
    if (lead) {
      return `${lead.name}: week of ${formatWeek(xs[last]!)} ${formatValue(lead.values[last], tile.unit)}${last > 0 ? ` · week of ${formatWeek(xs[0]!)} ${formatValue(lead.values[0], tile.unit)}` : ''}`;
    }
    const latest = series.map((s) => [s.name, [...s.values].reverse().find((v) => v !== null)] as const).filter(([, v]) => v !== undefined);
    return `latest: ${latest.map(([name, v]) => `${name} ${formatValue(v, tile.unit)}`).join(' · ')}`;
  }
  if (tile.x === 'week') {
    const last = xs.length - 1;
    return `week of ${formatWeek(xs[last]!)}: ${formatValue(total(last), tile.unit)}${last > 0 ? ` · week of ${formatWeek(xs[0]!)}: ${formatValue(total(0), tile.unit)}` : ''}`;
  }
  if (tile.chart === 'hbars') {
    const values = xs.map((x, i) => [x, total(i)] as const).sort((a, b) => b[1] - a[1]);
    const [hi, lo] = [values[0]!, values[values.length - 1]!];
    return values.length > 1
      ? `highest ${hi[0]} ${formatValue(hi[1], tile.unit)} · lowest ${lo[0]} ${formatValue(lo[1], tile.unit)}`
      : `${hi[0]} ${formatValue(hi[1], tile.unit)}`;
  }
  return `${xs.length} ${xs.length === 1 ? 'group' : 'groups'}`;
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:24px 28px;background:#f1f5f9;color:#0f172a}
header{margin-bottom:18px}h1{font-size:22px;margin:0 0 4px}.meta{color:#475569;font-size:13px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(620px,1fr));gap:18px;align-items:start}
.tile{background:#fff;border:1px solid #e2e8f0;border-radius:10px;padding:14px 16px 12px}
.tile h2{font-size:16px;margin:0}.tile h2 span{color:#94a3b8;font-weight:500;margin-right:6px}
.headline{font-size:13px;color:#0f172a;margin:4px 0 8px;font-variant-numeric:tabular-nums}
svg{display:block;max-width:100%;height:auto}
.caption{color:#475569;font-size:12.5px;line-height:1.45;margin:8px 0 0}.caption b{color:#166534;font-weight:600}
.empty{background:#fff7ed;border:1px solid #fed7aa;border-radius:8px;padding:10px 14px;margin-bottom:16px;font-size:13px}
code{font-size:12px;background:#f1f5f9;padding:1px 4px;border-radius:4px}`;

/** Markup drawn under the tiles (the release review), with its own CSS; still no script and no external resource. */
export interface PageSection {
  html: string;
  css: string;
}

/** The whole dashboard as one self-contained HTML page: inline SVG and CSS, no script, no external resource. */
export function renderDashboardPage(results: readonly TileResult[], meta: { events: number; generatedAtMs: number; below?: PageSection }): string {
  const tiles = results
    .map((r, i) => {
      const line = headline(r);
      return [
        `<section class="tile" data-tile="${esc(r.tile.id)}">`,
        `<h2><span>${i + 1}</span>${esc(r.tile.name)}</h2>`,
        line ? `<div class="headline">${esc(line)}</div>` : '',
        renderChart(r),
        `<p class="caption">${esc(r.tile.description)} <b>Healthy:</b> ${esc(r.tile.healthy)}</p>`,
        '</section>',
      ].join('');
    })
    .join('\n');
  const empty =
    meta.events === 0
      ? '<div class="empty">No events yet. Point a worker here (<code>MEMTRACE_POSTHOG_HOST=&lt;this address&gt; MEMTRACE_POSTHOG_KEY=local</code>) or fill it with a simulated fleet: <code>memtrace collector --simulate</code>.</div>'
      : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,"><title>memtrace fleet dashboard</title><style>${STYLE}${meta.below?.css ?? ''}</style></head>
<body><header><h1>memtrace fleet dashboard</h1><div class="meta">${meta.events.toLocaleString('en-US')} events in the local collector · computed ${esc(new Date(meta.generatedAtMs).toISOString().replace('T', ' ').slice(0, 19))} UTC · the same tile definitions run in PostHog as HogQL (<code>memtrace dashboards export</code>)</div></header>
${empty}<div class="grid">
${tiles}
</div>${meta.below ? `\n${meta.below.html}` : ''}</body></html>`;
}
