import { renderHogQLExpr } from '../dashboards/compile-hogql.js';
import { planTile, quote } from '../dashboards/tile-plan.js';
import type { Dimension } from '../dashboards/tile-ir.js';
import { MEMTRACE_EVENTS_COLUMN, REVIEW_SUMS_TILE } from './review-sums-tile.js';

/** Like the tiles, the review reads this many weeks back from PostHog. */
export const DEFAULT_SINCE_WEEKS = 26;

const plan = planTile(REVIEW_SUMS_TILE);

const versionExpr = (() => {
  const by: Dimension | undefined = REVIEW_SUMS_TILE.series?.by;
  if (by === undefined || typeof by !== 'object') throw new Error('review sums: the series must be the app version expression');
  return renderHogQLExpr(by.expr);
})();

/** A measure's leaf: every review measure is the sum of one per-event value. */
function leafOf(name: string): number {
  const agg = plan.measures.find((m) => m.name === name)?.agg;
  if (!agg || !('sum' in agg)) throw new Error(`review sums: ${name} is not a plain sum`);
  return agg.sum;
}

/**
 * One row per event uuid (PostHog may hold an event twice until its table merges), with its
 * install, version and the per-event values of the given leaves, within the last `sinceWeeks`.
 */
function perEvent(leaves: readonly number[], sinceWeeks: number): string {
  const columns = ['any(distinct_id) AS install', `any(${versionExpr}) AS version`, ...leaves.map((i) => `any(${renderHogQLExpr(plan.leaves[i]!)}) AS v${i}`)];
  const where = [
    `event IN (${REVIEW_SUMS_TILE.events.map(quote).join(', ')})`,
    ...(sinceWeeks > 0 ? [`timestamp >= now() - INTERVAL ${Math.floor(sinceWeeks)} WEEK`] : []),
  ];
  return `SELECT uuid, ${columns.join(', ')} FROM events WHERE ${where.join(' AND ')} GROUP BY uuid`;
}

/**
 * Per install and version, each review measure's numerator and denominator sums (columns named
 * as the collector's review sums), for the given versions only, one page in a stable order:
 * PostHog returns at most the LIMIT it is given, so a large fleet is read page by page.
 */
export function installSumsHogQL(versions: readonly string[], page: { limit: number; offset: number }, sinceWeeks = DEFAULT_SINCE_WEEKS): string {
  const names = plan.measures.map((m) => m.name);
  const leaves = [...new Set(names.map(leafOf))].sort((a, b) => a - b);
  return [
    `SELECT install, version, ${names.map((n) => `sum(v${leafOf(n)}) AS ${n}`).join(', ')}`,
    `FROM (${perEvent(leaves, sinceWeeks)})`,
    `WHERE version IN (${versions.map(quote).join(', ')})`,
    'GROUP BY install, version',
    'ORDER BY version, install',
    `LIMIT ${Math.floor(page.limit)} OFFSET ${Math.floor(page.offset)}`,
  ].join('\n');
}

/** The versions PostHog holds review events from, with their installs and memtrace-only events. */
export function versionsHogQL(sinceWeeks = DEFAULT_SINCE_WEEKS): string {
  const memtrace = leafOf(MEMTRACE_EVENTS_COLUMN);
  return [
    `SELECT version, count(DISTINCT install) AS installs, sum(v${memtrace}) AS ${MEMTRACE_EVENTS_COLUMN}`,
    `FROM (${perEvent([memtrace], sinceWeeks)})`,
    'GROUP BY version',
    'ORDER BY installs DESC, version',
    'LIMIT 1000',
  ].join('\n');
}
