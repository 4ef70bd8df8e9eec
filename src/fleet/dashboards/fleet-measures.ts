/**
 * What the fleet's tiles read from its events, named once: the event names, the vocabularies the
 * rollups count by, and the per-event expressions more than one view shares ("a turn", "its
 * cost", "its version"). The tiles themselves: tiles.ts (the observer's and the context's) and
 * worker-tiles.ts (the hook path, the agent's wait, secrets, hosts, memory, sharing).
 */
import { ABORT_REASONS, HOOK_DURATION_BOUNDS_MS, HOOK_DURATION_BUCKETS, OBSERVATION_TYPES, REDACTION_KINDS } from '../../telemetry/index.js';
import { anyOf, byEvent, eq, firstOf, has, lit, mul, num, str, type Dimension, type Expr } from './tile-ir.js';

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

/** Installs a per-install tile keeps at each end of its ranking (plus the median): 101 bars, PostHog's default 100 rows and one. */
export const RANKED_ENDS = 50;
/** The exclusive duration buckets of `hook_rollup` (ms upper bounds; the last is open). */
export const HOOK_BUCKETS = HOOK_DURATION_BUCKETS.map((key, i) => ({ key, upTo: HOOK_DURATION_BOUNDS_MS[i] ?? null }));

/** The vocabularies the rollups count by, as the telemetry schema defines them (never copied here). */
export { ABORT_REASONS, OBSERVATION_TYPES };

/** Every observer turn counts once: a rollup carries `count` turns, a legacy event is one turn. */
export const turns: Expr = byEvent({ [ROLLUP]: num('count'), [LEGACY]: lit(1) });
/** Legacy turns killed as poisoned. memtrace never emits the value, so its rows add 0. */
export const poisoned: Expr = byEvent({ [LEGACY]: anyOf(eq(str('abort_reason'), 'poisoned'), eq(str('invalid_output_class'), 'poisoned')) });
export const cost: Expr = byEvent({ [ROLLUP]: num('total_cost_usd'), [LEGACY]: num('cost_usd') });
/** Observations whose cost is known: absent cost is unknown, not free, so those stay out of the ratio. */
export const costedObservations: Expr = byEvent({
  [ROLLUP]: mul(has('total_cost_usd'), num('observations_created')),
  [LEGACY]: mul(has('cost_usd'), num('observations_created')),
});
export const injected: Expr = byEvent({ [CONTEXT_ROLLUP]: num('total_observations_injected'), [LEGACY_CONTEXT]: num('observations_injected') });
export const tokensSaved: Expr = byEvent({ [CONTEXT_ROLLUP]: num('total_tokens_saved_vs_naive'), [LEGACY_CONTEXT]: num('tokens_saved_vs_naive') });
export const injections: Expr = byEvent({ [CONTEXT_ROLLUP]: num('count'), [LEGACY_CONTEXT]: lit(1) });
export const appVersion: Dimension = { expr: firstOf(str('app_version'), str('$app_version')), label: 'app_version' };
/** A hook_rollup field counted only for the post_tool_use hook, the one that runs on every tool call. */
export const postToolUse = (e: Expr): Expr => byEvent({ [HOOK_ROLLUP]: mul(eq(str('hook_event'), 'post_tool_use'), e) });

/**
 * The per-event expressions the tiles are built from, for other readers of the same events (the
 * release review): one reading of "a turn", "its cost" or "its version" for every view of the fleet.
 */
export const FLEET_EXPRESSIONS = { turns, poisoned, cost, costedObservations, tokensSaved, injections, postToolUse, appVersion } as const;
