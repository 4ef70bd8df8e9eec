import { byEvent, lit, sum, type Tile } from '../dashboards/tile-ir.js';
import { CONTEXT_ROLLUP, FLEET_EXPRESSIONS, HOOK_ROLLUP, LEGACY, LEGACY_CONTEXT, ROLLUP } from '../dashboards/fleet-measures.js';
import { REVIEW_MEASURES } from './review-measures.js';

/** Events only memtrace sends (never the legacy releases): they mark a version as memtrace's. */
const memtraceEvents = byEvent({ [ROLLUP]: lit(1), [CONTEXT_ROLLUP]: lit(1), [HOOK_ROLLUP]: lit(1) });

export const numeratorColumn = (id: string) => `${id}_num`;
export const denominatorColumn = (id: string) => `${id}_den`;
export const MEMTRACE_EVENTS_COLUMN = 'memtrace_events';

/**
 * The release review's sums: per install and app version, each measure's numerator and
 * denominator. Defined in the tiles' language so the collector keeps it at ingest like any tile
 * (one row per install × version, whatever the number of events) and it compiles to HogQL and
 * to the plain SQL the kept sums must equal. It is read by the review, never drawn.
 */
export const REVIEW_SUMS_TILE: Tile = {
  id: 'review-install-sums',
  name: 'Release review: sums per install and version',
  description: "Each review measure's numerator and denominator summed per install and app version; the install is the review's unit of sampling.",
  healthy: 'not drawn; read by memtrace dashboards review.',
  chart: 'ranked',
  unit: 'count',
  events: [ROLLUP, LEGACY, CONTEXT_ROLLUP, LEGACY_CONTEXT, HOOK_ROLLUP],
  x: 'install',
  series: { by: FLEET_EXPRESSIONS.appVersion },
  measures: [
    ...REVIEW_MEASURES.flatMap((m) => [
      { name: numeratorColumn(m.id), agg: sum(m.numerator) },
      { name: denominatorColumn(m.id), agg: sum(m.denominator) },
    ]),
    { name: MEMTRACE_EVENTS_COLUMN, agg: sum(memtraceEvents) },
  ],
};
