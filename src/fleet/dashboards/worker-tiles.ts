/**
 * The fleet's tiles on what the worker does beside observing: the hook path's cost, the agent's
 * wait, secrets redacted, hosts, memory searches and shared memory (docs/dashboards.md).
 */
import {
  AGENT_SHARE_BOUNDS_PCT,
  AGENT_SHARE_BUCKETS,
  MEMORY_ACCESS_VIA,
  REDACTION_KINDS,
  SHARE_LAG_BOUNDS_MS,
  SHARE_LAG_BUCKETS,
} from '../../telemetry/index.js';
import { add, byEvent, eq, firstOf, installs, lit, mul, num, quantile, ratio, str, sum, text, type Dimension, type Expr, type Tile } from './tile-ir.js';
import {
  ROLLUP,
  HOOK_ROLLUP,
  AGENT_TIME_ROLLUP,
  REDACTION_ROLLUP,
  MEMORY_ROLLUP,
  SHARE_ROLLUP,
  RANKED_ENDS,
  HOOK_BUCKETS,
  appVersion,
  postToolUse,
} from './fleet-measures.js';

/** The faces a memory search comes through. */
const MEMORY_VIA = MEMORY_ACCESS_VIA;
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

/** The tiles of the worker's own path and of memory's use: after the observer's (tiles.ts), in this order. */
export const WORKER_TILES: readonly Tile[] = [
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
