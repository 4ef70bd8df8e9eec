import type { Unit } from '../dashboards/tile-ir.js';
import type { Interval } from './verdict.js';
import type { MeasureReview, Review } from './compute-review.js';
import { reviewMeasure } from './review-measures.js';

/** A number in the measure's unit, to three significant digits; a difference of shares is in percentage points. */
function scaled(v: number, unit: Unit): string {
  const x = unit === 'share' ? v * 100 : v;
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a === 0) return '0';
  return String(Number(x.toPrecision(3)));
}

function suffix(unit: Unit, isDifference: boolean): string {
  if (unit === 'share') return isDifference ? ' pp' : ' %';
  if (unit === 'ms') return ' ms';
  return '';
}

export function formatMeasureValue(v: number | null, unit: Unit, options: { difference?: boolean } = {}): string {
  if (v === null || !Number.isFinite(v)) return '—';
  const sign = options.difference && v > 0 ? '+' : '';
  const text = scaled(v, unit);
  return unit === 'usd' ? `${sign}${text.startsWith('-') ? `-$${text.slice(1)}` : `$${text}`}` : `${sign}${text}${suffix(unit, options.difference ?? false)}`;
}

function withInterval(i: Interval, unit: Unit, difference = false): string {
  const value = formatMeasureValue(i.value, unit, { difference });
  if (i.low === null || i.high === null) return value;
  return `${value} [${scaled(i.low, unit)}, ${scaled(i.high, unit)}]`;
}

const VERDICT_TEXT = { better: 'better', worse: 'worse', no_change: 'no change', insufficient_data: 'insufficient data' } as const;

interface Cells {
  measure: string;
  baseline: string;
  candidate: string;
  difference: string;
  verdict: string;
  minDetectable: string;
  installs: string;
}

function cells(m: MeasureReview): Cells {
  const unit = reviewMeasure(m.id)?.unit ?? 'count';
  return {
    measure: m.id,
    baseline: withInterval(m.baseline, unit),
    candidate: withInterval(m.candidate, unit),
    difference: withInterval(m.difference, unit, true),
    verdict: VERDICT_TEXT[m.verdict],
    minDetectable: m.min_detectable === null ? '—' : `±${formatMeasureValue(m.min_detectable, unit, { difference: true }).replace(/^\+/, '')}`,
    installs: `${m.baseline.installs} / ${m.candidate.installs}`,
  };
}

/** "2 better, 1 worse, 10 no change, 1 insufficient data" */
export function reviewSummary(review: Review): string {
  const count = (v: MeasureReview['verdict']) => review.measures.filter((m) => m.verdict === v).length;
  return (['better', 'worse', 'no_change', 'insufficient_data'] as const).map((v) => `${count(v)} ${VERDICT_TEXT[v]}`).join(', ');
}

const EXPLANATION =
  "Values are ratios of sums over each version's installs with 95 % intervals [low, high]; the install is the unit of sampling (delta method). " +
  'A verdict is better or worse only when the difference\'s interval excludes 0. "min detectable" is the smallest difference this fleet would flag 4 times in 5.';

function headers(review: Review): Cells {
  return {
    measure: 'measure',
    baseline: `baseline ${review.baseline}`,
    candidate: `candidate ${review.candidate}`,
    difference: 'difference',
    verdict: 'verdict',
    minDetectable: 'min detectable',
    installs: 'installs',
  };
}

const ORDER: ReadonlyArray<keyof Cells> = ['measure', 'baseline', 'candidate', 'difference', 'verdict', 'minDetectable', 'installs'];

/** The review as an aligned text table for a terminal. */
export function reviewTable(review: Review): string {
  const rows = [headers(review), ...review.measures.map(cells)].map((c) => ORDER.map((k) => c[k]));
  const widths = ORDER.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    `## Release review: ${review.baseline} → ${review.candidate}`,
    line(rows[0]!),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.slice(1).map(line),
    '',
    reviewSummary(review),
    EXPLANATION,
  ].join('\n');
}

/** The review as Markdown to paste into a release pull request. */
export function reviewMarkdown(review: Review): string {
  const escapePipes = (s: string) => s.replace(/\|/g, '\\|');
  const row = (c: Cells, bold: boolean) => `| ${ORDER.map((k) => (bold && k === 'verdict' ? `**${c[k]}**` : escapePipes(c[k]))).join(' | ')} |`;
  return [
    `### Release review: ${review.baseline} → ${review.candidate}`,
    '',
    `**${reviewSummary(review)}**`,
    '',
    row(headers(review), false),
    `| ${ORDER.map(() => '---').join(' | ')} |`,
    ...review.measures.map((m) => row(cells(m), m.verdict === 'better' || m.verdict === 'worse')),
    '',
    EXPLANATION,
    '',
  ].join('\n');
}
