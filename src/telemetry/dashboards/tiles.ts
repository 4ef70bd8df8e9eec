import { add, eq, isEvent, num, str, sum, when, type Expr, type Tile } from './tile-ir.js';

/** memtrace's rollups and the legacy fleet's per-turn events (SPEC §4.6). */
export const ROLLUP = 'observer_turn_rollup';
export const LEGACY = 'session_compressed';
export const CONTEXT_ROLLUP = 'context_injected_rollup';
export const LEGACY_CONTEXT = 'context_injected';

const ABORT_REASONS = ['quota', 'auth', 'rate_limit', 'overloaded', 'transport', 'bad_request', 'idle', 'shutdown'] as const;
const INVALID_CLASSES = ['idle', 'prose', 'malformed_xml'] as const;
const OBS_TYPES = ['bugfix', 'feature', 'refactor', 'change', 'discovery', 'decision', 'security', 'other'] as const;

/** Every observer turn counts once: a rollup carries `count` turns, a legacy event is one turn. */
const turns: Expr = add(when(ROLLUP, num('count')), isEvent(LEGACY));
/** Legacy turns aborted or classified as poisoned; memtrace never emits the value. */
const poisoned: Expr = when(LEGACY, { either: [eq(str('abort_reason'), 'poisoned'), eq(str('invalid_output_class'), 'poisoned')] });
const cost: Expr = add(when(ROLLUP, num('total_cost_usd')), when(LEGACY, num('cost_usd')));
const observationsCreated: Expr = add(when(ROLLUP, num('observations_created')), when(LEGACY, num('observations_created')));
const model = { expr: { firstOf: [str('top_model'), str('model')] } as Expr, label: 'model' };
const appVersion = { expr: { firstOf: [str('app_version'), str('$app_version')] } as Expr, label: 'app_version' };

export const TILES: readonly Tile[] = [
  {
    id: 'abort-reasons',
    name: 'Session abort reasons',
    caption: 'Turns that ended without a handled reply, by reason. Healthy: small, dominated by transient rate_limit/overloaded; no poisoned after upgrade.',
    chart: 'stacked-bars',
    events: [ROLLUP, LEGACY],
    x: 'week',
    measures: [
      ...ABORT_REASONS.map((r) => ({ name: r, agg: sum(add(when(ROLLUP, num(`abort_reason_${r}`)), when(LEGACY, eq(str('abort_reason'), r)))) })),
      { name: 'poisoned', agg: sum(when(LEGACY, eq(str('abort_reason'), 'poisoned'))) },
    ],
  },
  {
    id: 'invalid-output-classes',
    name: 'Compression invalid-output classes',
    caption: 'Dropped observer replies by class. Healthy: idle and prose only, no poisoned class at all.',
    chart: 'stacked-bars',
    events: [ROLLUP, LEGACY],
    x: 'week',
    measures: [
      ...INVALID_CLASSES.map((c) => ({ name: c, agg: sum(add(when(ROLLUP, num(`invalid_class_${c}`)), when(LEGACY, eq(str('invalid_output_class'), c)))) })),
      { name: 'poisoned', agg: sum(when(LEGACY, eq(str('invalid_output_class'), 'poisoned'))) },
    ],
  },
  {
    id: 'poisoned-decay',
    name: 'Poisoned-slice decay',
    caption: 'Share of all observer turns aborted as poisoned, by app version. Healthy: falls to zero as installs upgrade; memtrace versions are always 0.',
    chart: 'lines',
    events: [ROLLUP, LEGACY],
    x: 'week',
    series: appVersion,
    measures: [{ name: 'poisoned_share', agg: { ratio: [sum(poisoned), sum(turns)] } }],
    having: { nonZero: turns },
  },
  {
    id: 'cost-per-observation',
    name: 'Cost per observation by model',
    caption: 'USD spent per stored observation. Healthy: stable or falling; a jump means drops or retries are wasting calls.',
    chart: 'bars',
    events: [ROLLUP, LEGACY],
    x: model,
    measures: [{ name: 'usd_per_observation', agg: { ratio: [sum(cost), sum(observationsCreated)] } }],
    having: { nonZero: observationsCreated },
  },
  {
    id: 'observation-types',
    name: 'Observation types by model',
    caption: 'What each model records. Healthy: a mix led by discovery, bugfix and change; all "other" means the prompt is not followed.',
    chart: 'stacked-bars',
    events: [ROLLUP],
    x: model,
    measures: OBS_TYPES.map((t) => ({ name: t, agg: sum(num(`obs_type_${t}`)) })),
    having: { nonZero: num('observations_created') },
  },
  {
    id: 'context-cache-value',
    name: 'Context-cache value',
    caption: 'Observations injected × cost per observation: what re-discovering the injected memory would have cost (USD). Healthy: grows with use.',
    chart: 'bars',
    events: [ROLLUP, LEGACY, CONTEXT_ROLLUP, LEGACY_CONTEXT],
    x: 'week',
    measures: [
      {
        name: 'usd_value',
        agg: { product: [sum(add(when(CONTEXT_ROLLUP, num('total_observations_injected')), when(LEGACY_CONTEXT, num('observations_injected')))), { ratio: [sum(cost), sum(observationsCreated)] }] },
      },
    ],
  },
  {
    id: 'tokens-saved',
    name: 'Tokens saved vs naive per install',
    caption: 'Discovery tokens of injected memory minus tokens injected, per install. Healthy: positive for most installs.',
    chart: 'bars',
    events: [CONTEXT_ROLLUP, LEGACY_CONTEXT],
    x: 'install',
    measures: [{ name: 'tokens_saved', agg: sum(add(when(CONTEXT_ROLLUP, num('total_tokens_saved_vs_naive')), when(LEGACY_CONTEXT, num('tokens_saved_vs_naive')))) }],
  },
];
