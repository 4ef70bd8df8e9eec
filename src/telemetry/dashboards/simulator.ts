import type { CollectedEvent } from '../collector/collected-event.js';
import { seededRandom, type Random } from './prng.js';
import { ABORT_REASONS, CONTEXT_ROLLUP, LEGACY, LEGACY_CONTEXT, OBSERVATION_TYPES, ROLLUP } from './tiles.js';

/**
 * A mixed fleet, pure and seeded. Installs on legacy releases send one `session_compressed` per
 * observer turn, killed as `poisoned` at the rate the legacy fleet showed per model (seed 000,
 * PostHog 30 d); they move to memtrace in a week drawn from a logistic adoption curve, and from
 * then on send one `observer_turn_rollup` and one `context_injected_rollup` per session. What the
 * legacy classifier killed, memtrace drops as prose and carries on, so it has no poisoned slice.
 */
export const POISONED_SHARE_BY_MODEL: Readonly<Record<string, number>> = {
  haiku: 0.411,
  'claude-haiku-4-5-20251001': 0.339,
  'claude-sonnet-4-5': 0.177,
  'claude-sonnet-4-6': 0.096,
  'claude-opus-4-7': 0.059,
  'gemini-2.5-flash-lite': 0.001,
  'openai/gpt-oss-120b:free': 0.001,
  'gemini-3-flash-preview': 0,
  'xiaomi/mimo-v2-flash:free': 0,
};

/** Share of installs per model, and what a turn costs (USD; free models really cost 0). */
const MODELS: ReadonlyArray<{ id: string; weight: number; usdPerTurn: number; provider: string; followsTypes: boolean }> = [
  { id: 'haiku', weight: 0.17, usdPerTurn: 0.0021, provider: 'anthropic', followsTypes: true },
  { id: 'claude-haiku-4-5-20251001', weight: 0.3, usdPerTurn: 0.0024, provider: 'anthropic', followsTypes: true },
  { id: 'claude-sonnet-4-5', weight: 0.1, usdPerTurn: 0.0092, provider: 'anthropic', followsTypes: true },
  { id: 'claude-sonnet-4-6', weight: 0.16, usdPerTurn: 0.0088, provider: 'anthropic', followsTypes: true },
  { id: 'claude-opus-4-7', weight: 0.05, usdPerTurn: 0.031, provider: 'anthropic', followsTypes: true },
  { id: 'gemini-2.5-flash-lite', weight: 0.1, usdPerTurn: 0.0004, provider: 'openai', followsTypes: true },
  { id: 'openai/gpt-oss-120b:free', weight: 0.05, usdPerTurn: 0, provider: 'openai', followsTypes: false },
  { id: 'gemini-3-flash-preview', weight: 0.04, usdPerTurn: 0.0011, provider: 'openai', followsTypes: true },
  { id: 'xiaomi/mimo-v2-flash:free', weight: 0.03, usdPerTurn: 0, provider: 'openai', followsTypes: false },
];

/** The legacy releases (13.5.x only set `$app_version`) and memtrace's releases. */
export const LEGACY_VERSIONS = ['13.5.2', '13.6.0'] as const;
export const MEMTRACE_VERSIONS = ['0.1.0', '0.2.0'] as const;

const TYPE_MIX: Readonly<Record<string, number>> = { discovery: 0.27, change: 0.2, bugfix: 0.18, feature: 0.12, refactor: 0.08, decision: 0.08, security: 0.03, other: 0.04 };
const LOOSE_TYPE_MIX: Readonly<Record<string, number>> = { discovery: 0.2, change: 0.15, bugfix: 0.12, feature: 0.1, refactor: 0.05, decision: 0.05, security: 0.01, other: 0.32 };
const TRANSIENT = ['rate_limit', 'overloaded', 'transport'] as const;
const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

export interface FleetOptions {
  seed?: number;
  installs?: number;
  weeks?: number;
  /** Start of the first week (ms, UTC); default Monday 2026-06-01. */
  startMs?: number;
  /** Mean sessions per install per week. */
  sessionsPerWeek?: number;
  /** Mean observer turns per session. */
  turnsPerSession?: number;
}

export const DEFAULT_FLEET = { seed: 42, installs: 150, weeks: 12, startMs: Date.UTC(2026, 5, 1), sessionsPerWeek: 3, turnsPerSession: 12 } as const;

function pickWeighted<T extends string>(random: Random, weights: Readonly<Record<T, number>>): T {
  const entries = Object.entries(weights) as Array<[T, number]>;
  let r = random() * entries.reduce((n, [, w]) => n + w, 0);
  for (const [value, w] of entries) if ((r -= w) < 0) return value;
  return entries[entries.length - 1]![0];
}

/** Logistic: the week an install upgrades, centred at `mid` with spread `scale`; may fall past the end. */
const adoptionWeek = (random: Random, mid: number, scale: number) => {
  const u = Math.min(0.999, Math.max(0.001, random()));
  return Math.floor(mid + scale * Math.log(u / (1 - u)));
};

/** Yields the fleet's events install by install; pure, so the same options give the same events. */
export function* generateFleet(options: FleetOptions = {}): Generator<CollectedEvent> {
  const o = { ...DEFAULT_FLEET, ...options };
  const random = seededRandom(o.seed);
  const uuid = () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[Math.floor(random() * 4)]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
  const memtrace2Release = Math.floor(o.weeks * 0.6);
  for (let i = 0; i < o.installs; i += 1) {
    const distinctId = uuid();
    const modelId = pickWeighted(random, Object.fromEntries(MODELS.map((m) => [m.id, m.weight])));
    const model = MODELS.find((m) => m.id === modelId)!;
    const poisonedShare = POISONED_SHARE_BY_MODEL[model.id] ?? 0;
    const upgradeWeek = adoptionWeek(random, o.weeks * 0.45, o.weeks / 10);
    const secondUpgrade = Math.max(upgradeWeek, memtrace2Release) + Math.floor(-2 * Math.log(1 - random() * 0.95));
    const legacyVersion = random() < 0.35 ? LEGACY_VERSIONS[0] : LEGACY_VERSIONS[1];
    const activity = 0.3 + 1.7 * random();
    const base = { os: pickWeighted(random, { linux: 0.45, darwin: 0.45, win32: 0.1 }), arch: random() < 0.6 ? 'arm64' : 'x64', node_version: random() < 0.7 ? 'v20.20.2' : 'v22.12.0', is_ci: random() < 0.03 };
    // Some installs inject little memory per session, so injection can cost more than it saves.
    const injectedMean = random() < 0.08 ? 1.5 : 4 + 10 * random();
    for (let week = 0; week < o.weeks; week += 1) {
      const onMemtrace = week >= upgradeWeek;
      const version = !onMemtrace ? legacyVersion : week >= secondUpgrade ? MEMTRACE_VERSIONS[1] : MEMTRACE_VERSIONS[0];
      const versionProps = version === '13.5.2' ? { $app_version: version } : { app_version: version };
      const sessions = Math.round(o.sessionsPerWeek * activity * (0.5 + random()));
      for (let s = 0; s < sessions; s += 1) {
        const start = o.startMs + week * WEEK_MS + Math.floor(random() * (WEEK_MS - 2 * 3_600_000));
        const turns = Math.max(1, Math.round(o.turnsPerSession * (0.4 + 1.2 * random())));
        const injected = Math.max(0, Math.round(injectedMean * (0.5 + random())));
        const injectedTokens = 450 + injected * 70;
        const savedTokens = injected * Math.round(700 + 900 * random()) - injectedTokens;
        if (!onMemtrace) {
          const context = { ...base, ...versionProps, observations_injected: injected, tokens_injected: injectedTokens, tokens_saved_vs_naive: savedTokens };
          yield { uuid: uuid(), event: LEGACY_CONTEXT, distinctId, timestamp: start, properties: context };
          for (let t = 0; t < turns; t += 1) {
            yield { uuid: uuid(), event: LEGACY, distinctId, timestamp: start + 5_000 + t * 25_000, properties: { ...base, ...versionProps, model: model.id, ...legacyTurn(random, model, poisonedShare) } };
          }
          continue;
        }
        const end = start + 5_000 + turns * 25_000;
        yield { uuid: uuid(), event: ROLLUP, distinctId, timestamp: end, properties: { ...base, ...versionProps, ...rollup(random, model, poisonedShare, turns), rollup_reason: random() < 0.93 ? 'session_end' : 'worker_shutdown', window_seq: 0, window_start_ts: start } };
        yield {
          uuid: uuid(),
          event: CONTEXT_ROLLUP,
          distinctId,
          timestamp: start + 300_000,
          properties: { ...base, ...versionProps, count: 1, outcomes_ok: 1, outcomes_error: 0, total_tokens: injectedTokens, avg_tokens: injectedTokens, total_observations_injected: injected, total_tokens_saved_vs_naive: savedTokens, window_start_ts: start },
        };
      }
    }
  }
}

/** The whole fleet as an array (the default is about 50 k events). */
export function simulateFleet(options: FleetOptions = {}): CollectedEvent[] {
  return [...generateFleet(options)];
}

type Model = (typeof MODELS)[number];

function legacyTurn(random: Random, model: Model, poisonedShare: number): Record<string, unknown> {
  const r = random();
  if (r < poisonedShare) return { outcome: 'aborted', abort_reason: 'poisoned', invalid_output_class: 'poisoned' };
  if (r < poisonedShare + 0.06) return { outcome: 'invalid_output', invalid_output_class: pickWeighted(random, { prose: 0.45, idle: 0.4, xml: 0.15 }) };
  if (r < poisonedShare + 0.09) return { outcome: 'aborted', abort_reason: random() < 0.9 ? TRANSIENT[Math.floor(random() * TRANSIENT.length)] : random() < 0.5 ? 'quota' : 'auth' };
  const observations = Math.floor(random() * 3.2);
  // About one turn in twenty had no usage reported: its cost is unknown, so it is left out.
  const cost = random() < 0.05 ? {} : { cost_usd: Math.round(model.usdPerTurn * (0.6 + 0.8 * random()) * 1e6) / 1e6 };
  return { outcome: 'ok', invalid_output_class: 'xml', observations_created: observations, ...cost };
}

function rollup(random: Random, model: Model, poisonedShare: number, turns: number): Record<string, unknown> {
  const c: Record<string, number> = { count: turns, turns_parsed: 0, turns_dropped: 0, invalid_class_idle: 0, invalid_class_prose: 0, invalid_class_malformed_xml: 0, outcomes_ok: 0, outcomes_error: 0, outcomes_aborted: 0 };
  for (const reason of ABORT_REASONS) c[`abort_reason_${reason}`] = 0;
  for (const type of OBSERVATION_TYPES) c[`obs_type_${type}`] = 0;
  const bump = (key: string, by = 1) => {
    c[key] = (c[key] ?? 0) + by;
  };
  let observations = 0;
  let cost = 0;
  let unknownUsage = 0;
  let tokensIn = 0;
  for (let t = 0; t < turns; t += 1) {
    const r = random();
    if (r < poisonedShare + 0.03) {
      // The closure-phrase replies the legacy classifier called poisoned: dropped as prose, session goes on.
      bump('turns_dropped');
      bump('invalid_class_prose');
      bump('outcomes_ok');
    } else if (r < poisonedShare + 0.055) {
      bump('turns_dropped');
      bump(random() < 0.85 ? 'invalid_class_idle' : 'invalid_class_malformed_xml');
      bump('outcomes_ok');
    } else if (r < poisonedShare + 0.08) {
      bump('outcomes_error');
      bump(`abort_reason_${TRANSIENT[Math.floor(random() * TRANSIENT.length)]}`);
      continue;
    } else if (r < poisonedShare + 0.085) {
      bump('outcomes_aborted');
      bump(random() < 0.7 ? 'abort_reason_idle' : 'abort_reason_shutdown');
      continue;
    } else {
      bump('turns_parsed');
      bump('outcomes_ok');
      const n = Math.floor(random() * 3.2);
      observations += n;
      for (let k = 0; k < n; k += 1) bump(`obs_type_${pickWeighted(random, model.followsTypes ? TYPE_MIX : LOOSE_TYPE_MIX)}`);
    }
    if (random() < 0.03) unknownUsage += 1;
    else {
      cost += model.usdPerTurn * (0.6 + 0.8 * random());
      tokensIn += 6_000 + Math.floor(random() * 6_000);
    }
  }
  const known = turns - c.outcomes_error! - c.outcomes_aborted! - unknownUsage;
  // Absent is not zero: with no turn's usage known, tokens and cost are left out.
  const usage = known > 0 ? { total_tokens_input: tokensIn, total_tokens_output: Math.round(tokensIn * 0.08), total_cost_usd: Math.round(cost * 1e6) / 1e6 } : {};
  return {
    ...c,
    observations_created: observations,
    summaries_created: random() < 0.9 ? 1 : 0,
    claims_rejected: random() < 0.05 ? 1 : 0,
    ...usage,
    turns_usage_unknown: unknownUsage,
    avg_duration_ms: Math.round(1_800 + 2_400 * random()),
    top_model: model.id,
    provider: model.provider,
  };
}
