import { seededRandom } from './prng.js';
import type { CollectedEvent } from '../collector/collector-store.js';

/**
 * A mixed fleet: installs on legacy releases emit one `session_compressed` per observer turn,
 * with the poisoned share by model that the legacy fleet showed (seed 000); installs that have
 * upgraded to memtrace emit one `observer_turn_rollup` per session and never a poisoned slice.
 * Upgrades follow a logistic adoption curve over the weeks. Pure and seeded.
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
};
const MODEL_WEIGHTS: Array<[string, number]> = [
  ['haiku', 0.2],
  ['claude-haiku-4-5-20251001', 0.3],
  ['claude-sonnet-4-5', 0.12],
  ['claude-sonnet-4-6', 0.15],
  ['claude-opus-4-7', 0.05],
  ['gemini-2.5-flash-lite', 0.08],
  ['openai/gpt-oss-120b:free', 0.05],
  ['gemini-3-flash-preview', 0.05],
];
export const LEGACY_VERSIONS = ['13.5.2', '13.6.0'];
export const MEMTRACE_VERSIONS = ['0.1.0', '0.2.0'];
const WEEK_MS = 7 * 86_400_000;
const OBS_TYPES = ['bugfix', 'feature', 'refactor', 'change', 'discovery', 'decision', 'security', 'other'];
const TRANSIENT = ['rate_limit', 'overloaded', 'transport'];

export interface FleetOptions {
  seed?: number;
  installs?: number;
  weeks?: number;
  /** Monday 00:00 UTC of the first week. */
  startMs?: number;
  sessionsPerWeek?: number;
  turnsPerSession?: number;
}

export function simulateFleet(options: FleetOptions = {}): CollectedEvent[] {
  const random = seededRandom(options.seed ?? 42);
  const installs = options.installs ?? 120;
  const weeks = options.weeks ?? 12;
  const start = options.startMs ?? Date.UTC(2026, 5, 1);
  const sessionsPerWeek = options.sessionsPerWeek ?? 3;
  const turnsPerSession = options.turnsPerSession ?? 12;
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const uuid = () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
  const events: CollectedEvent[] = [];
  for (let i = 0; i < installs; i += 1) {
    const distinctId = uuid();
    let r = random();
    const model = MODEL_WEIGHTS.find(([, w]) => (r -= w) < 0)?.[0] ?? 'haiku';
    // Each install upgrades in a week drawn from a logistic curve centred mid-way.
    const upgradeWeek = Math.round(weeks / 2 + (weeks / 8) * Math.log(1 / Math.min(0.999, Math.max(0.001, random())) - 1));
    const legacyVersion = pick(LEGACY_VERSIONS);
    for (let week = 0; week < weeks; week += 1) {
      const upgraded = week >= upgradeWeek;
      const version = upgraded ? (week >= upgradeWeek + 3 ? MEMTRACE_VERSIONS[1]! : MEMTRACE_VERSIONS[0]!) : legacyVersion;
      const base = { app_version: version, os: 'linux', arch: 'x64', node_version: 'v20.20.2', is_ci: false };
      for (let s = 0; s < sessionsPerWeek; s += 1) {
        const sessionStart = start + week * WEEK_MS + Math.floor(random() * (WEEK_MS - 3_600_000));
        const poisonedShare = POISONED_SHARE_BY_MODEL[model] ?? 0;
        if (!upgraded) {
          for (let t = 0; t < turnsPerSession; t += 1) {
            const roll = random();
            const props: Record<string, unknown> = { ...base, $app_version: version, model };
            if (roll < poisonedShare) Object.assign(props, { outcome: 'aborted', abort_reason: 'poisoned', invalid_output_class: 'poisoned' });
            else if (roll < poisonedShare + 0.08) Object.assign(props, { outcome: 'invalid_output', invalid_output_class: random() < 0.5 ? 'idle' : 'prose' });
            else if (roll < poisonedShare + 0.11) Object.assign(props, { outcome: 'aborted', abort_reason: pick(TRANSIENT) });
            else Object.assign(props, { outcome: 'ok', invalid_output_class: 'xml', observations_created: 1 + Math.floor(random() * 2), cost_usd: 0.0008 + random() * 0.002 });
            events.push({ uuid: uuid(), event: 'session_compressed', distinctId, timestamp: sessionStart + t * 20_000, properties: props });
          }
          continue;
        }
        const counts: Record<string, number> = { count: turnsPerSession, turns_parsed: 0, turns_dropped: 0, invalid_class_idle: 0, invalid_class_prose: 0, invalid_class_malformed_xml: 0, outcomes_ok: 0, outcomes_error: 0, outcomes_aborted: 0, observations_created: 0, summaries_created: 1 };
        for (const reason of ['idle', 'shutdown', 'quota', 'auth', 'rate_limit', 'overloaded', 'transport', 'bad_request']) counts[`abort_reason_${reason}`] = 0;
        for (const type of OBS_TYPES) counts[`obs_type_${type}`] = 0;
        let cost = 0;
        for (let t = 0; t < turnsPerSession; t += 1) {
          const roll = random();
          // What the legacy fleet killed as poisoned is, to memtrace, prose: dropped, and the session goes on.
          if (roll < poisonedShare + 0.04) {
            counts.turns_dropped! += 1;
            counts.invalid_class_prose! += 1;
            counts.outcomes_ok! += 1;
          } else if (roll < poisonedShare + 0.08) {
            counts.turns_dropped! += 1;
            counts.invalid_class_idle! += 1;
            counts.outcomes_ok! += 1;
          } else if (roll < poisonedShare + 0.11) {
            counts.outcomes_error! += 1;
            counts[`abort_reason_${pick(TRANSIENT)}`]! += 1;
          } else {
            counts.turns_parsed! += 1;
            counts.outcomes_ok! += 1;
            const n = 1 + Math.floor(random() * 2);
            counts.observations_created! += n;
            for (let k = 0; k < n; k += 1) counts[`obs_type_${pick(OBS_TYPES)}`]! += 1;
            cost += 0.0008 + random() * 0.002;
          }
        }
        events.push({
          uuid: uuid(),
          event: 'observer_turn_rollup',
          distinctId,
          timestamp: sessionStart + turnsPerSession * 20_000,
          properties: { ...base, ...counts, total_cost_usd: Math.round(cost * 1e6) / 1e6, top_model: model, provider: model.startsWith('gemini') || model.includes('/') ? 'openai' : 'anthropic', rollup_reason: 'session_end', window_seq: 0, window_start_ts: sessionStart },
        });
        const injected = 3 + Math.floor(random() * 10);
        events.push({
          uuid: uuid(),
          event: 'context_injected_rollup',
          distinctId,
          timestamp: sessionStart,
          properties: { ...base, count: 1, outcomes_ok: 1, outcomes_error: 0, total_tokens: 600 + injected * 60, avg_tokens: 600 + injected * 60, total_observations_injected: injected, total_tokens_saved_vs_naive: injected * 900 - (600 + injected * 60), window_start_ts: sessionStart },
        });
      }
    }
  }
  return events;
}
