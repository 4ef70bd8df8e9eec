/**
 * The fleet's tiles (docs/dashboards.md), in the dashboard's order: the observer's and the context's here,
 * then the worker's own (worker-tiles.ts). What they read is named in fleet-measures.ts.
 */
import { ABORT_REASONS, INVALID_CLASSES, OBSERVATION_TYPES } from '../../telemetry/index.js';
import { add, anyOf, atLeast, byEvent, eq, mul, not, num, product, ratio, scale, str, sum, xTotal, type Dimension, type Expr, type Tile } from './tile-ir.js';
import {
  ROLLUP,
  CONTEXT_ROLLUP,
  LEGACY,
  LEGACY_CONTEXT,
  RANKED_ENDS,
  turns,
  poisoned,
  cost,
  costedObservations,
  injected,
  tokensSaved,
  injections,
  appVersion,
} from './fleet-measures.js';
import { WORKER_TILES } from './worker-tiles.js';

/**
 * A version's line on the decay tile is drawn only in weeks where it ran at least this share of
 * the fleet's turns: the last few un-upgraded installs are not the fleet, and their share is noise.
 */
export const VERSION_NOISE_FLOOR = 0.1;
const legacyAbortedOther: Expr = mul(eq(str('outcome'), 'aborted'), not(anyOf(...[...ABORT_REASONS, 'poisoned'].map((r) => eq(str('abort_reason'), r)))));
/** A legacy event of a dropped-reply class; the legacy fleet called malformed XML "xml". */
const legacyInvalidClass = (c: (typeof INVALID_CLASSES)[number]): Expr =>
  c === 'malformed_xml' ? mul(eq(str('outcome'), 'invalid_output'), eq(str('invalid_output_class'), 'xml')) : eq(str('invalid_output_class'), c);
const observationsByType = add(...OBSERVATION_TYPES.map((t) => num(`obs_type_${t}`)));
const model: Dimension = { expr: byEvent({ [ROLLUP]: str('top_model'), [LEGACY]: str('model') }), label: 'model' };
const costPerObservation = ratio(sum(cost), sum(costedObservations));

export const TILES: readonly Tile[] = [
  {
    id: 'abort-reasons',
    name: 'Session abort reasons',
    description: 'Observer turns that ended without a handled reply, per week, by reason (rollup counters plus legacy per-turn aborts).',
    healthy: 'a thin band of transient reasons (rate_limit, overloaded, transport); the legacy poisoned slice shrinks to nothing as installs upgrade.',
    chart: 'stacked-bars',
    unit: 'count',
    events: [ROLLUP, LEGACY],
    x: 'week',
    measures: [
      ...ABORT_REASONS.map((r) => ({ name: r, agg: sum(byEvent({ [ROLLUP]: num(`abort_reason_${r}`), [LEGACY]: eq(str('abort_reason'), r) })) })),
      { name: 'poisoned', agg: sum(byEvent({ [LEGACY]: eq(str('abort_reason'), 'poisoned') })) },
      { name: 'other', agg: sum(byEvent({ [LEGACY]: legacyAbortedOther })) },
    ],
  },
  {
    id: 'invalid-output-classes',
    name: 'Compression invalid-output classes',
    description: 'Observer replies that did not parse, per week, by class (legacy "xml" failures count as malformed_xml).',
    healthy: 'idle and prose only, at a steady low level; no poisoned class once the fleet runs memtrace.',
    chart: 'stacked-bars',
    unit: 'count',
    events: [ROLLUP, LEGACY],
    x: 'week',
    measures: [
      ...INVALID_CLASSES.map((c) => ({ name: c, agg: sum(byEvent({ [ROLLUP]: num(`invalid_class_${c}`), [LEGACY]: legacyInvalidClass(c) })) })),
      { name: 'poisoned', agg: sum(byEvent({ [LEGACY]: eq(str('invalid_output_class'), 'poisoned') })) },
    ],
  },
  {
    id: 'poisoned-decay',
    name: 'Poisoned-slice decay',
    description: `Weekly share of observer turns killed as poisoned. The bold line is the whole fleet (every turn of the week in the denominator); the thin lines are each app version's own share, drawn only in weeks where that version ran at least ${VERSION_NOISE_FLOOR * 100} % of the fleet's turns.`,
    healthy: 'the fleet line falls week by week to zero as installs upgrade; memtrace versions sit at exactly 0.',
    chart: 'lines',
    unit: 'share',
    events: [ROLLUP, LEGACY],
    x: 'week',
    series: { by: appVersion, total: 'all versions' },
    measures: [
      { name: 'poisoned_share', agg: atLeast(ratio(sum(poisoned), sum(turns)), sum(turns), scale(xTotal(turns), VERSION_NOISE_FLOOR)) },
      { name: 'poisoned_turns', agg: sum(poisoned) },
      { name: 'turns', agg: sum(turns) },
      { name: 'week_turns', agg: xTotal(turns) },
    ],
    plot: ['poisoned_share'],
    having: { nonZero: turns },
  },
  {
    id: 'cost-per-observation',
    name: 'Cost per observation by model',
    description: 'USD spent by the observer per stored observation: sum(total_cost_usd) / sum(observations_created), by model.',
    healthy: 'stable per model and cents or less; a jump means calls are wasted on dropped or retried turns.',
    chart: 'hbars',
    unit: 'usd',
    events: [ROLLUP, LEGACY],
    x: model,
    measures: [
      { name: 'usd_per_observation', agg: costPerObservation },
      { name: 'cost_usd', agg: sum(cost) },
      { name: 'observations', agg: sum(costedObservations) },
    ],
    plot: ['usd_per_observation'],
    having: { nonZero: costedObservations },
    order: { by: 'usd_per_observation', desc: true },
  },
  {
    id: 'observation-types',
    name: 'Observation types by model',
    description: 'The mix of observation types each model stores (share of its observations), from the rollups.',
    healthy: 'a spread led by discovery, change and bugfix; a model stuck on "other" is not following the prompt.',
    chart: 'stacked-hbars',
    unit: 'share',
    events: [ROLLUP],
    x: { expr: str('top_model'), label: 'model' },
    measures: [
      ...OBSERVATION_TYPES.map((t) => ({ name: t, agg: ratio(sum(num(`obs_type_${t}`)), sum(observationsByType)) })),
      { name: 'observations', agg: sum(observationsByType) },
    ],
    plot: OBSERVATION_TYPES,
    having: { nonZero: observationsByType },
    order: { by: 'observations', desc: true },
  },
  {
    id: 'context-cache-value',
    name: 'Context-cache value',
    description: "Observations injected as context × that week's cost per observation: what re-creating the reused memory would have cost (USD).",
    healthy: 'grows with use and does not drop when installs upgrade.',
    chart: 'bars',
    unit: 'usd',
    events: [ROLLUP, LEGACY, CONTEXT_ROLLUP, LEGACY_CONTEXT],
    x: 'week',
    measures: [
      { name: 'usd_value', agg: product(sum(injected), costPerObservation) },
      { name: 'observations_injected', agg: sum(injected) },
      { name: 'usd_per_observation', agg: costPerObservation },
    ],
    plot: ['usd_value'],
  },
  {
    id: 'tokens-saved',
    name: 'Tokens saved vs naive per install',
    description: 'Per install, tokens the injected memory saved against re-reading its sources, highest first.',
    healthy: 'above zero for nearly every install; bars below the line are installs where injection costs more than it saves.',
    chart: 'ranked',
    unit: 'tokens',
    events: [CONTEXT_ROLLUP, LEGACY_CONTEXT],
    x: 'install',
    measures: [
      { name: 'tokens_saved', agg: sum(tokensSaved) },
      { name: 'injections', agg: sum(injections) },
    ],
    plot: ['tokens_saved'],
    order: { by: 'tokens_saved', desc: true },
    keep: { ends: RANKED_ENDS },
  },
  ...WORKER_TILES,
];
