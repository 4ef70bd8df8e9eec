import type { OutputClass } from '../observer/types.js';
import { OBSERVATION_TYPES } from '../vocabulary/observation.js';
import { ABORT_REASONS } from '../observer/turn-record.js';
import { isKnownModelId, MODEL_ID_MAX_LENGTH, MODEL_ID_PATTERN } from './model-id.js';
import { count, COUNT, EPOCH_MS, PLATFORM, PROVIDER, SEMVER, type EventSpec, type FieldSpec } from './field-types.js';
import { HOOK_ROLLUP } from './events/hook-rollup.js';
import { COMPACTION_ROLLUP } from './events/compaction-rollup.js';
import { MINING_ROLLUP } from './events/mining-rollup.js';
import { AGENT_TIME_ROLLUP } from './events/agent-time-rollup.js';
import { REDACTION_ROLLUP } from './events/redaction-rollup.js';
import { MEMORY_ACCESS_ROLLUP } from './events/memory-access-rollup.js';
import { SHARE_ROLLUP } from './events/share-rollup.js';

export type { EventSpec, FieldSpec, FieldType } from './field-types.js';

/**
 * The event catalogue as data: the one source of truth for the scrubber, `telemetry schema`
 * and docs/telemetry.md. Every value is typed; there is no free-text type.
 */
export const BASE_FIELDS: readonly FieldSpec[] = [
  { key: 'app_version', type: SEMVER, description: 'memtrace version' },
  {
    key: 'os',
    type: { kind: 'enum', values: ['linux', 'darwin', 'win32', 'freebsd', 'openbsd', 'sunos', 'aix', 'android', 'other'] },
    description: 'operating system family',
  },
  {
    key: 'arch',
    type: { kind: 'enum', values: ['x64', 'arm64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64', 'other'] },
    description: 'CPU architecture',
  },
  { key: 'node_version', type: SEMVER, description: 'Node.js version' },
  { key: 'is_ci', type: { kind: 'bool' }, description: 'running under CI' },
];

/** The vocabularies the rollups count by; readers of the events (the fleet tiles) import them from here. */
export { ABORT_REASONS, OBSERVATION_TYPES };

/** The classes of a dropped observer reply (`invalid_class_<class>` counters), in the order they are counted. */
export const INVALID_CLASSES = ['idle', 'prose', 'malformed_xml'] as const satisfies readonly OutputClass[];
const INVALID_CLASS_MEANING: Record<(typeof INVALID_CLASSES)[number], string> = {
  idle: 'were empty',
  prose: 'were prose',
  malformed_xml: 'looked like XML but held nothing usable',
};

const ROLLUP_REASONS = ['session_end', 'worker_shutdown', 'safety_flush', 'crash_recovery'] as const;

const OBSERVER_TURN_ROLLUP: EventSpec = {
  name: 'observer_turn_rollup',
  description: 'Counters over one session’s observer turns.',
  cadence: 'one per session: at session end, worker shutdown, a safety cap (1 h or 1000 turns), or after a crash',
  fields: [
    count('count', 'observer turns in this rollup'),
    count('turns_parsed', 'turns whose reply parsed'),
    count('turns_dropped', 'turns whose reply was dropped'),
    ...INVALID_CLASSES.map((c) => count(`invalid_class_${c}`, `dropped replies that ${INVALID_CLASS_MEANING[c]}`)),
    count('outcomes_ok', 'turns that got a reply'),
    count('outcomes_error', 'turns that failed at the provider'),
    count('outcomes_aborted', 'turns cut short (shutdown)'),
    ...ABORT_REASONS.map((r) => count(`abort_reason_${r}`, `turns that ended with reason ${r}`)),
    count('tool_events_observed', 'tool events the turns observed (one turn is one observer call over an agent turn’s events)'),
    count('observations_created', 'observations stored'),
    ...OBSERVATION_TYPES.map((t) => count(`obs_type_${t}`, `observations of type ${t}`)),
    count('summaries_created', 'summaries stored'),
    count('claims_rejected', 'claims found false (a commit hash the repository does not hold); their statements were removed'),
    count('claims_unverifiable', 'claims that could not be checked (no repository at cwd, git missing, slow or failing); kept and marked'),
    count('file_claims_removed', 'files_modified entries that no tool event of the session shows written; removed'),
    { key: 'total_tokens_input', type: COUNT, description: 'input tokens over turns with known usage (absent if none known)' },
    { key: 'total_tokens_output', type: COUNT, description: 'output tokens over turns with known usage (absent if none known)' },
    { key: 'total_cost_usd', type: { kind: 'number', min: 0, max: 1_000_000 }, description: 'cost over turns with a known cost (absent if none known)' },
    count('turns_usage_unknown', 'turns whose usage the provider did not report'),
    { key: 'avg_duration_ms', type: { kind: 'number', min: 0, max: 86_400_000 }, description: 'mean observer call duration' },
    {
      key: 'top_model',
      type: {
        kind: 'pattern',
        pattern: new RegExp(`${MODEL_ID_PATTERN.source}|^other$`),
        maxLength: MODEL_ID_MAX_LENGTH,
        shape: 'known model id or other',
        check: (v) => v === 'other' || isKnownModelId(v),
      },
      description: 'most used model',
    },
    { key: 'provider', type: PROVIDER, description: 'observer provider (an agent host’s name: that host’s own CLI with the user’s login)' },
    { key: 'platform', type: PLATFORM, description: 'the agent host the session ran on (other for a host memtrace has no adapter for)' },
    { key: 'rollup_reason', type: { kind: 'enum', values: ROLLUP_REASONS }, description: 'why this rollup was sent' },
    { key: 'window_seq', type: { kind: 'int', min: 0, max: 1_000_000 }, description: 'rollup number within the session (safety flushes)' },
    { key: 'window_start_ts', type: EPOCH_MS, description: 'first turn of the window (epoch ms)' },
  ],
};

const CONTEXT_INJECTED_ROLLUP: EventSpec = {
  name: 'context_injected_rollup',
  description: 'Counters over context injections in a 5-minute window.',
  cadence: 'one per 5-minute window with injections',
  fields: [
    count('count', 'injections in the window'),
    count('outcomes_ok', 'injections served'),
    count('outcomes_error', 'injections that failed'),
    count('total_tokens', 'tokens injected'),
    { key: 'avg_tokens', type: { kind: 'number', min: 0, max: 1_000_000 }, description: 'mean tokens per injection' },
    count('total_observations_injected', 'observations injected'),
    {
      key: 'total_tokens_saved_vs_naive',
      type: { kind: 'int', min: -1_000_000_000, max: 1_000_000_000 },
      description: 'discovery tokens of injected observations minus tokens injected (absent if unknown)',
    },
    { key: 'window_start_ts', type: EPOCH_MS, description: 'window start (epoch ms)' },
  ],
};

const WORKER_STARTED: EventSpec = {
  name: 'worker_started',
  description: 'The worker started.',
  cadence: 'once per start',
  fields: [
    { key: 'previous_shutdown', type: { kind: 'enum', values: ['clean', 'crash', 'unknown'] }, description: 'how the previous run ended' },
    { key: 'provider', type: PROVIDER, description: 'observer provider' },
    count('outbox_dropped', 'events dropped because the outbox was full since the last report'),
    count('recovered_messages', 'messages returned to pending after an unclean stop'),
  ],
};

const WORKER_STOPPED: EventSpec = {
  name: 'worker_stopped',
  description: 'The worker stopped cleanly.',
  cadence: 'once per clean stop',
  fields: [
    { key: 'uptime_s', type: { kind: 'int', min: 0, max: 100_000_000 }, description: 'seconds since start' },
    count('outbox_dropped', 'events dropped because the outbox was full since the last report'),
  ],
};

const EXCEPTION: EventSpec = {
  name: '$exception',
  description: 'An unexpected error, redacted; at most one per fingerprint per minute. Off with MEMTRACE_TELEMETRY_ERRORS=0.',
  cadence: 'rate-limited',
  fields: [
    {
      key: '$exception_type',
      type: { kind: 'pattern', pattern: /^[A-Za-z_$][\w$]{0,63}$/, maxLength: 64, shape: 'error class name' },
      description: 'error class',
    },
    {
      key: '$exception_message',
      // biome-ignore lint/suspicious/noControlCharactersInRegex: a message holding control characters is refused, by design.
      type: { kind: 'pattern', pattern: /^[^\u0000-\u0008\u000b-\u001f]*$/, maxLength: 1024, shape: 'redacted message' },
      description: 'message after redaction (paths, secrets, emails, IPs removed)',
    },
    {
      key: '$exception_fingerprint',
      type: { kind: 'pattern', pattern: /^[0-9a-f]{16}$/, maxLength: 16, shape: '16 hex' },
      description: 'stable id of the error kind',
    },
    count('occurrences', 'occurrences since the last report of this fingerprint'),
    { key: 'stage', type: { kind: 'enum', values: ['worker', 'server', 'provider', 'telemetry', 'store', 'cli'] }, description: 'where it happened' },
  ],
};

/** Every event memtrace can send. A new event is a file in events/ and one entry here. */
export const TELEMETRY_EVENTS: readonly EventSpec[] = [
  OBSERVER_TURN_ROLLUP,
  CONTEXT_INJECTED_ROLLUP,
  HOOK_ROLLUP,
  AGENT_TIME_ROLLUP,
  COMPACTION_ROLLUP,
  MINING_ROLLUP,
  REDACTION_ROLLUP,
  MEMORY_ACCESS_ROLLUP,
  SHARE_ROLLUP,
  WORKER_STARTED,
  WORKER_STOPPED,
  EXCEPTION,
];

export function eventSpec(name: string): EventSpec | undefined {
  return TELEMETRY_EVENTS.find((e) => e.name === name);
}
