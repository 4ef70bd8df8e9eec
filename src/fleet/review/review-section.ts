import { escapeXml as esc, niceScale } from '../dashboards/chart-format.js';
import type { PageSection } from '../dashboards/dashboard-page.js';
import type { MeasureReview, Review } from './compute-review.js';
import { formatMeasureValue, reviewSummary } from './review-text.js';
import { reviewMeasure } from './review-measures.js';

const COLOR = { better: '#15803d', worse: '#b91c1c', no_change: '#64748b', insufficient_data: '#cbd5e1' } as const;
const W = 600;
const LABEL_W = 190;
const PLOT = { left: LABEL_W + 10, right: W - 20 };
const ROW_H = 20;
const TOP = 24;
/** Differences are drawn relative to the baseline, clipped here: a 10× change needs no exact bar. */
const CLIP = 1;

/** The difference and its interval as a share of the baseline's value (null when there is none to divide by). */
function relative(m: MeasureReview): { value: number; low: number; high: number } | null {
  const base = m.baseline.value;
  const d = m.difference;
  if (base === null || base === 0 || d.value === null || d.low === null || d.high === null) return null;
  const by = Math.abs(base);
  return { value: d.value / by, low: d.low / by, high: d.high / by };
}

/**
 * One row per measure: the candidate's difference from the baseline, as a share of the
 * baseline's value, with its 95 % interval; a vertical line at no change. Every drawn interval
 * is a `g.mark` carrying its measure and verdict.
 */
function forestPlot(review: Review): string {
  const rows = review.measures.map((m) => ({ m, r: relative(m) }));
  const extent = Math.min(CLIP, Math.max(0.05, ...rows.flatMap(({ r }) => (r ? [Math.abs(r.low), Math.abs(r.high)] : []))));
  const scale = niceScale(-extent, extent, 4);
  const x = (v: number) => PLOT.left + ((Math.max(scale.lo, Math.min(scale.hi, v)) - scale.lo) / (scale.hi - scale.lo)) * (PLOT.right - PLOT.left);
  const height = TOP + rows.length * ROW_H + 8;
  const ticks = scale.ticks
    .map((t) => `<text x="${x(t).toFixed(1)}" y="14" text-anchor="middle" font-size="10" fill="#64748b">${t > 0 ? '+' : ''}${Math.round(t * 100)} %</text>`)
    .join('');
  const marks = rows
    .map(({ m, r }, i) => {
      const y = TOP + i * ROW_H + ROW_H / 2;
      const label = `<text x="${LABEL_W}" y="${y + 4}" text-anchor="end" font-size="11" fill="#0f172a">${esc(m.id)}</text>`;
      if (!r)
        return `${label}<text x="${PLOT.left + 4}" y="${y + 4}" font-size="10" fill="#94a3b8">${m.verdict === 'insufficient_data' ? 'insufficient data' : 'no baseline to compare with'}</text>`;
      const color = COLOR[m.verdict];
      return (
        `${label}<g class="mark" data-measure="${esc(m.id)}" data-verdict="${m.verdict}">` +
        `<line x1="${x(r.low).toFixed(1)}" x2="${x(r.high).toFixed(1)}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="3" stroke-linecap="round"/>` +
        `<circle cx="${x(r.value).toFixed(1)}" cy="${y}" r="4" fill="${color}"/></g>`
      );
    })
    .join('');
  const zero = `<line class="zero" x1="${x(0).toFixed(1)}" x2="${x(0).toFixed(1)}" y1="${TOP - 4}" y2="${height - 4}" stroke="#0f172a" stroke-dasharray="3 3"/>`;
  return `<svg viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="difference from ${esc(review.baseline)} per measure, with 95 % intervals">${ticks}${zero}${marks}</svg>`;
}

function tableRow(m: MeasureReview): string {
  const unit = reviewMeasure(m.id)?.unit ?? 'count';
  const span = (v: MeasureReview['baseline'] | MeasureReview['difference'], difference = false) =>
    `${esc(formatMeasureValue(v.value, unit, { difference }))}${v.low !== null && v.high !== null ? ` <small>${esc(formatMeasureValue(v.low, unit, { difference }))} … ${esc(formatMeasureValue(v.high, unit, { difference }))}</small>` : ''}`;
  const mde = m.min_detectable === null ? '—' : `±${esc(formatMeasureValue(m.min_detectable, unit, { difference: true }).replace(/^\+/, ''))}`;
  return `<tr data-measure="${esc(m.id)}"><td>${esc(m.id)}</td><td>${span(m.baseline)}</td><td>${span(m.candidate)}</td><td>${span(m.difference, true)}</td><td class="verdict ${m.verdict}">${m.verdict.replace('_', ' ')}</td><td>${mde}</td><td>${m.baseline.installs} / ${m.candidate.installs}</td></tr>`;
}

const CSS = `
.review{background:#fff;border:1px solid #e2e8f0;border-radius:10px;padding:14px 16px 12px;margin-top:18px}
.review h2{font-size:16px;margin:0}.review table{border-collapse:collapse;font-size:12.5px;margin-top:10px;font-variant-numeric:tabular-nums}
.review th,.review td{text-align:left;padding:3px 10px 3px 0;border-bottom:1px solid #f1f5f9;vertical-align:top}.review small{color:#64748b}
.verdict.better{color:#15803d;font-weight:600}.verdict.worse{color:#b91c1c;font-weight:600}.verdict.no_change{color:#475569}.verdict.insufficient_data{color:#94a3b8}`;

/** The release review under the tiles: a difference plot and the table `dashboards review` prints. */
export function renderReviewSection(review: Review | null, reason: string): PageSection {
  if (review === null) return { css: CSS, html: `<section class="review"><h2>Release review</h2><p class="caption">${esc(reason)}</p></section>` };
  return {
    css: CSS,
    html: [
      `<section class="review" data-baseline="${esc(review.baseline)}" data-candidate="${esc(review.candidate)}">`,
      `<h2>Release review: ${esc(review.baseline)} → ${esc(review.candidate)}</h2>`,
      `<div class="headline">${esc(reviewSummary(review))} · the two newest memtrace releases; the install is the unit of sampling</div>`,
      forestPlot(review),
      '<table><thead><tr><th>measure</th><th>baseline</th><th>candidate</th><th>difference</th><th>verdict</th><th>min detectable</th><th>installs</th></tr></thead><tbody>',
      review.measures.map(tableRow).join(''),
      '</tbody></table>',
      `<p class="caption">Each value is a ratio of sums over the version's installs with its 95 % interval (delta method over installs); the plot shows the difference as a share of the baseline. A verdict is better or worse only when the difference's interval excludes 0. <code>memtrace dashboards review --baseline ${esc(review.baseline)} --candidate ${esc(review.candidate)} --markdown FILE</code> writes it for a release PR.</p>`,
      '</section>',
    ].join(''),
  };
}
