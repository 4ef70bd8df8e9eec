import { byEvent, eq, num, str, type Expr, type Unit } from '../dashboards/tile-ir.js';
import { ABORT_REASONS, FLEET_EXPRESSIONS, LEGACY, ROLLUP } from '../dashboards/fleet-measures.js';

/**
 * What a release review compares (docs/interfaces.md#dashboards-review; the ids are fixed). Every measure is a ratio of
 * two sums of per-event values, read the way the tiles read the same events, so a review's
 * value for a version is what a tile would show for it over all time.
 */
export interface ReviewMeasure {
  id: string;
  label: string;
  unit: Unit;
  /** The direction a fix moves the measure. */
  better: 'lower' | 'higher';
  numerator: Expr;
  denominator: Expr;
  /** Values the measure can take; an interval is clipped to them. */
  range: { min: number | null; max: number | null };
}

const { turns, poisoned, cost, costedObservations, tokensSaved, injections, postToolUse } = FLEET_EXPRESSIONS;
const RATE = { min: 0, max: 1 };
const NON_NEGATIVE = { min: 0, max: null };

/** A legacy per-turn event whose reply was dropped as invalid output is a dropped turn. */
const turnsDropped: Expr = byEvent({ [ROLLUP]: num('turns_dropped'), [LEGACY]: eq(str('outcome'), 'invalid_output') });
const observations: Expr = byEvent({ [ROLLUP]: num('observations_created'), [LEGACY]: num('observations_created') });

export const REVIEW_MEASURES: readonly ReviewMeasure[] = [
  { id: 'turns_dropped_rate', label: 'Turns dropped', unit: 'share', better: 'lower', numerator: turnsDropped, denominator: turns, range: RATE },
  ...ABORT_REASONS.map(
    (reason): ReviewMeasure => ({
      id: `abort_rate_${reason}`,
      label: `Turns aborted: ${reason}`,
      unit: 'share',
      better: 'lower',
      numerator: byEvent({ [ROLLUP]: num(`abort_reason_${reason}`), [LEGACY]: eq(str('abort_reason'), reason) }),
      denominator: turns,
      range: RATE,
    }),
  ),
  { id: 'poisoned_share', label: 'Turns killed as poisoned', unit: 'share', better: 'lower', numerator: poisoned, denominator: turns, range: RATE },
  {
    id: 'observations_per_turn',
    label: 'Observations per turn',
    unit: 'count',
    better: 'higher',
    numerator: observations,
    denominator: turns,
    range: NON_NEGATIVE,
  },
  {
    id: 'cost_per_observation',
    label: 'Cost per observation',
    unit: 'usd',
    better: 'lower',
    numerator: cost,
    denominator: costedObservations,
    range: NON_NEGATIVE,
  },
  {
    id: 'tokens_saved_per_injection',
    label: 'Tokens saved per injection',
    unit: 'tokens',
    better: 'higher',
    numerator: tokensSaved,
    denominator: injections,
    range: { min: null, max: null },
  },
  {
    id: 'hook_ms_per_call',
    label: 'Hook ms per tool call',
    unit: 'ms',
    better: 'lower',
    numerator: postToolUse(num('total_ms')),
    denominator: postToolUse(num('count')),
    range: NON_NEGATIVE,
  },
];

export function reviewMeasure(id: string): ReviewMeasure | undefined {
  return REVIEW_MEASURES.find((m) => m.id === id);
}
