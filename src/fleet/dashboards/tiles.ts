import {
  ABORT_REASONS,
  AGENT_SHARE_BOUNDS_PCT,
  AGENT_SHARE_BUCKETS,
  HOOK_DURATION_BOUNDS_MS,
  HOOK_DURATION_BUCKETS,
  INVALID_CLASSES,
  MEMORY_ACCESS_VIA,
  OBSERVATION_TYPES,
  REDACTION_KINDS,
  SHARE_LAG_BOUNDS_MS,
  SHARE_LAG_BUCKETS,
} from '../../telemetry/index.js';
import {
  add,
  anyOf,
  atLeast,
  byEvent,
  eq,
  firstOf,
  has,
  installs,
  lit,
  mul,
  not,
  num,
  product,
  quantile,
  ratio,
  scale,
  str,
  sum,
  text,
  xTotal,
  type Dimension,
  type Expr,
  type Tile,
} from './tile-ir.js';

/** memtrace's rollups (docs/interfaces.md#event-names) and the legacy fleet's per-occurrence events. */
export const ROLLUP = 'observer_turn_rollup';
export const CONTEXT_ROLLUP = 'context_injected_rollup';
export const LEGACY = 'session_compressed';
export const LEGACY_CONTEXT = 'context_injected';
/** The hook path's own cost per window (docs/interfaces.md#event-names); read here, defined by the worker's schema. */
export const HOOK_ROLLUP = 'hook_rollup';
/** How long agents waited for memtrace, per finished session (telemetry/events/agent-time-rollup.ts). */
export const AGENT_TIME_ROLLUP = 'agent_time_rollup';
/** Secrets replaced before the first write, per window, edge and kind (docs/secrets-and-retention.md). */
export const REDACTION_ROLLUP = 'redaction_rollup';
/** The redactor's closed list of kinds; the rollup carries one counter per kind. */
export { REDACTION_KINDS };
/** Searches and other uses of the memory per window and face (docs/memory.md#telemetry-memory_access_rollup). */
export const MEMORY_ROLLUP = 'memory_access_rollup';
/** Shared memory through Postgres per window and trigger (docs/sharing.md#telemetry). */
export const SHARE_ROLLUP = 'share_rollup';
/** The faces a memory search comes through. */
const MEMORY_VIA = MEMORY_ACCESS_VIA;
/** Installs a per-install tile keeps at each end of its ranking (plus the median): 101 bars, PostHog's default 100 rows and one. */
const RANKED_ENDS = 50;

/**
 * A version's line on the decay tile is drawn only in weeks where it ran at least this share of
 * the fleet's turns: the last few un-upgraded installs are not the fleet, and their share is noise.
 */
export const VERSION_NOISE_FLOOR = 0.1;
/** The exclusive duration buckets of `hook_rollup` (ms upper bounds; the last is open). */
export const HOOK_BUCKETS = HOOK_DURATION_BUCKETS.map((key, i) => ({ key, upTo: HOOK_DURATION_BOUNDS_MS[i] ?? null }));

/** The vocabularies the rollups count by, as the telemetry schema defines them (never copied here). */
export { ABORT_REASONS, OBSERVATION_TYPES };

/** Every observer turn counts once: a rollup carries `count` turns, a legacy event is one turn. */
const turns: Expr = byEvent({ [ROLLUP]: num('count'), [LEGACY]: lit(1) });
/** Legacy turns killed as poisoned. memtrace never emits the value, so its rows add 0. */
const poisoned: Expr = byEvent({ [LEGACY]: anyOf(eq(str('abort_reason'), 'poisoned'), eq(str('invalid_output_class'), 'poisoned')) });
const legacyAbortedOther: Expr = mul(eq(str('outcome'), 'aborted'), not(anyOf(...[...ABORT_REASONS, 'poisoned'].map((r) => eq(str('abort_reason'), r)))));
/** A legacy event of a dropped-reply class; the legacy fleet called malformed XML "xml". */
const legacyInvalidClass = (c: (typeof INVALID_CLASSES)[number]): Expr =>
  c === 'malformed_xml' ? mul(eq(str('outcome'), 'invalid_output'), eq(str('invalid_output_class'), 'xml')) : eq(str('invalid_output_class'), c);
const cost: Expr = byEvent({ [ROLLUP]: num('total_cost_usd'), [LEGACY]: num('cost_usd') });
/** Observations whose cost is known: absent cost is unknown, not free, so those stay out of the ratio. */
const costedObservations: Expr = byEvent({
  [ROLLUP]: mul(has('total_cost_usd'), num('observations_created')),
  [LEGACY]: mul(has('cost_usd'), num('observations_created')),
});
const observationsByType = add(...OBSERVATION_TYPES.map((t) => num(`obs_type_${t}`)));
const injected: Expr = byEvent({ [CONTEXT_ROLLUP]: num('total_observations_injected'), [LEGACY_CONTEXT]: num('observations_injected') });
const tokensSaved: Expr = byEvent({ [CONTEXT_ROLLUP]: num('total_tokens_saved_vs_naive'), [LEGACY_CONTEXT]: num('tokens_saved_vs_naive') });
const injections: Expr = byEvent({ [CONTEXT_ROLLUP]: num('count'), [LEGACY_CONTEXT]: lit(1) });

const model: Dimension = { expr: byEvent({ [ROLLUP]: str('top_model'), [LEGACY]: str('model') }), label: 'model' };
const appVersion: Dimension = { expr: firstOf(str('app_version'), str('$app_version')), label: 'app_version' };
const costPerObservation = ratio(sum(cost), sum(costedObservations));
/** A hook_rollup field counted only for the post_tool_use hook, the one that runs on every tool call. */
const postToolUse = (e: Expr): Expr => byEvent({ [HOOK_ROLLUP]: mul(eq(str('hook_event'), 'post_tool_use'), e) });
/** A kind's measure name: `private` (the <private> spans) reads as a SQL keyword, so it is spelled out. */
export const redactionMeasure = (kind: string) => (kind === 'private' ? 'private_span' : kind);
const hookBuckets = () => HOOK_BUCKETS.map((b) => ({ upTo: b.upTo, count: sum(postToolUse(num(b.key))) }));
/** agent_time_rollup's exclusive share buckets, as fractions (the schema's bounds are percent). */
const agentShareBuckets = () =>
  AGENT_SHARE_BUCKETS.map((key, i) => ({ upTo: i < AGENT_SHARE_BOUNDS_PCT.length ? AGENT_SHARE_BOUNDS_PCT[i]! / 100 : null, count: sum(num(key)) }));
/** Records of share_rollup's delivery-lag buckets up to a bound (ms), and in all of them. */
const deliveredWithin = (ms: number) =>
  add(...SHARE_LAG_BUCKETS.filter((_, i) => (SHARE_LAG_BOUNDS_MS[i] ?? Number.POSITIVE_INFINITY) <= ms).map((key) => num(key)));
/** Records in the buckets above a bound (ms): delivered later than it. */
const deliveredAfter = (ms: number) => add(...SHARE_LAG_BUCKETS.filter((_, i) => i > 0 && (SHARE_LAG_BOUNDS_MS[i - 1] ?? 0) >= ms).map((key) => num(key)));
const delivered = add(...SHARE_LAG_BUCKETS.map((key) => num(key)));
/** The agent host a rollup came from; releases before rollups named it ran on Claude Code only. */
const host: Dimension = { expr: firstOf(str('platform'), text('claude-code')), label: 'host' };
const memorySearches: Expr = byEvent({ [MEMORY_ROLLUP]: num('searches') });
/** Activity that makes an install count as active: its observer turns, or any use of its memory. */
const activeInstall: Expr = add(byEvent({ [ROLLUP]: num('count') }), memorySearches, byEvent({ [MEMORY_ROLLUP]: num('observations_fetched') }));

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
  {
    id: 'hook-cost',
    name: 'Hook cost per tool call by version',
    description:
      'Mean milliseconds the post_tool_use hook adds to every tool call, weekly, by app version: sum(total_ms) / sum(count) over hook_rollup (tables add p50 and p90, read from its duration buckets).',
    healthy: 'tens of milliseconds on current versions; a version near 600 ms still starts a TypeScript runtime on every call.',
    chart: 'lines',
    unit: 'ms',
    events: [HOOK_ROLLUP],
    x: 'week',
    series: { by: appVersion },
    measures: [
      { name: 'mean_ms', agg: ratio(sum(postToolUse(num('total_ms'))), sum(postToolUse(num('count')))) },
      { name: 'p50_ms', agg: quantile(0.5, hookBuckets()) },
      { name: 'p90_ms', agg: quantile(0.9, hookBuckets()) },
      { name: 'calls', agg: sum(postToolUse(num('count'))) },
      { name: 'timeouts', agg: sum(postToolUse(num('timeouts'))) },
    ],
    plot: ['mean_ms'],
    having: { nonZero: postToolUse(num('count')) },
  },
  {
    id: 'agent-time-share',
    name: 'memtrace’s share of agent time',
    description:
      'Per session, the time the agent waited for memtrace’s hooks over the session’s wall time, weekly, by host: the fleet’s p50 and p95 of that share, read from agent_time_rollup’s buckets (tables add the mean, sum(blocking_ms) / sum(agent_ms)).',
    healthy: 'p50 around 1 % and p95 under 5 % on every host: the agent does not feel memtrace.',
    chart: 'lines',
    unit: 'share',
    events: [AGENT_TIME_ROLLUP],
    x: 'week',
    series: { by: host },
    measures: [
      { name: 'p50', agg: quantile(0.5, agentShareBuckets()) },
      { name: 'p95', agg: quantile(0.95, agentShareBuckets()) },
      { name: 'mean', agg: ratio(sum(num('blocking_ms')), sum(num('agent_ms'))) },
      { name: 'sessions', agg: sum(num('sessions')) },
    ],
    plot: ['p50', 'p95'],
    having: { nonZero: num('sessions') },
  },
  {
    id: 'secrets-redacted',
    name: 'Secrets kept out of storage, by kind',
    description:
      'Secrets replaced by [REDACTED:<kind>] before the first write, per week, by kind, summed over every edge (hook API, transcripts, imports, the final guard before the observer LLM). caught_by_final_guard counts those only the last guard caught.',
    healthy:
      'a steady mix led by authorization headers, URL passwords and cloud keys; caught_by_final_guard stays at zero (every edge redacts before it writes).',
    chart: 'stacked-bars',
    unit: 'count',
    events: [REDACTION_ROLLUP],
    x: 'week',
    measures: [
      ...REDACTION_KINDS.map((k) => ({ name: redactionMeasure(k), agg: sum(num(k)) })),
      { name: 'caught_by_final_guard', agg: sum(mul(eq(str('edge'), 'observer_guard'), num('total'))) },
    ],
    plot: REDACTION_KINDS.map(redactionMeasure),
    having: { nonZero: num('total') },
  },
  {
    id: 'hosts',
    name: 'Active installs and observer turns by host',
    description:
      'Weekly, by agent host: installs with observer or hook rollups from it, and observer turns and sessions on it. Rollups without a platform (older releases) are claude-code.',
    healthy: 'claude-code steady while gemini-cli and codex grow after their release; an install on two hosts counts once on each.',
    chart: 'lines',
    unit: 'count',
    events: [ROLLUP, HOOK_ROLLUP],
    x: 'week',
    series: { by: host },
    measures: [
      { name: 'active_installs', agg: installs(lit(1)) },
      { name: 'observer_turns', agg: sum(byEvent({ [ROLLUP]: num('count') })) },
      { name: 'sessions', agg: sum(byEvent({ [ROLLUP]: lit(1) })) },
    ],
    plot: ['active_installs'],
  },
  {
    id: 'memory-searches',
    name: 'Memory searches per active install',
    description:
      'Per install active in the period (it ran observer turns or used its memory), how often its memory was searched — by the agent through MCP, on the command line or in the viewer — most first. Installs at 0 never searched (or run a release without memory search).',
    healthy: 'most installs above zero, the agent (mcp) leading: memory is looked up when it is needed, not only injected at session start.',
    chart: 'ranked',
    unit: 'count',
    events: [MEMORY_ROLLUP, ROLLUP],
    x: 'install',
    measures: [
      { name: 'searches', agg: sum(memorySearches) },
      ...MEMORY_VIA.map((via) => ({ name: `via_${via}`, agg: sum(byEvent({ [MEMORY_ROLLUP]: mul(eq(str('via'), via), num('searches')) })) })),
      { name: 'empty_share', agg: ratio(sum(byEvent({ [MEMORY_ROLLUP]: num('searches_empty') })), sum(memorySearches)) },
      { name: 'observations_fetched', agg: sum(byEvent({ [MEMORY_ROLLUP]: num('observations_fetched') })) },
      { name: 'observer_turns', agg: sum(byEvent({ [ROLLUP]: num('count') })) },
    ],
    plot: ['searches'],
    having: { nonZero: activeInstall },
    order: { by: 'searches', desc: true },
    keep: { ends: RANKED_ENDS },
  },
  {
    id: 'shared-memory',
    name: 'Shared memory: records delivered and delivery lag',
    description:
      'Weekly, from share_rollup: records pushed to and pulled from shared Postgres databases, and failed syncs; tables add the share of records delivered within 5 s and after 5 min.',
    healthy: 'pulled grows with pushed; failures a thin band; nearly all delivered within 5 s.',
    chart: 'lines',
    unit: 'count',
    events: [SHARE_ROLLUP],
    x: 'week',
    measures: [
      { name: 'records_pushed', agg: sum(num('records_pushed')) },
      { name: 'records_pulled', agg: sum(num('records_pulled')) },
      { name: 'failures', agg: sum(num('failures')) },
      { name: 'delivered_within_5s', agg: ratio(sum(deliveredWithin(5_000)), sum(delivered)) },
      { name: 'delivered_after_5min', agg: ratio(sum(deliveredAfter(300_000)), sum(delivered)) },
    ],
    plot: ['records_pushed', 'records_pulled', 'failures'],
    having: { nonZero: add(num('syncs'), num('failures')) },
  },
];

/**
 * The per-event expressions the tiles are built from, for other readers of the same events (the
 * release review): one reading of "a turn", "its cost" or "its version" for every view of the fleet.
 */
export const FLEET_EXPRESSIONS = { turns, poisoned, cost, costedObservations, tokensSaved, injections, postToolUse, appVersion } as const;
