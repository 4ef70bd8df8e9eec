import type { CollectedEvent } from '../collector/collected-event.js';
import { LEGACY_VERSIONS, LOOSE_TYPE_MIX, MEMTRACE_VERSIONS, MODELS, pickWeighted, TYPE_MIX, turnCostUsd, turnTokens, upgradeWeek, type AdoptionCurve, type ModelProfile } from './fleet-model.js';
import { sessionAgentTime } from './agent-time-model.js';
import { sessionHookWindows } from './hook-model.js';
import { memoryProfile, sessionMemoryWindows } from './memory-model.js';
import { sessionRedactionWindows } from './redaction-model.js';
import { seededRandom, type Random } from './prng.js';
import { ABORT_REASONS, AGENT_TIME_ROLLUP, CONTEXT_ROLLUP, HOOK_ROLLUP, LEGACY, LEGACY_CONTEXT, MEMORY_ROLLUP, OBSERVATION_TYPES, REDACTION_ROLLUP, ROLLUP } from './tiles.js';

/**
 * A mixed fleet, pure and seeded. Installs on legacy releases send one `session_compressed` per
 * observer turn, killed as `poisoned` at the rate the legacy fleet showed for their model; each
 * install moves to memtrace 0.1.0 in a week drawn from the adoption curve, then to 0.2.0 along a
 * second curve once it is released. On memtrace an install sends per session one
 * `observer_turn_rollup`, one `context_injected_rollup`, its `hook_rollup` windows and, from 0.2.0
 * on, its `agent_time_rollup`, a `redaction_rollup` when its tool calls held secrets and its
 * `memory_access_rollup` windows (the latest release stands for the one with memory search), the
 * new ones drawn from random streams of their own so every other event stays as it was. What the
 * legacy classifier killed, memtrace drops as prose and carries on: no poisoned slice.
 * Each install runs one agent host. Gemini CLI and Codex installs start with the second memtrace
 * release (the first with their adapters), whose rollups name the `platform`; the legacy fleet and
 * the first release ran on Claude Code only, and their rollups do not name it.
 * The last simulated week is the week of `nowMs`, and nothing is dated after `nowMs`.
 */
export interface FleetOptions {
  seed?: number;
  installs?: number;
  weeks?: number;
  /** The simulated weeks end with the week holding this instant (ms, UTC); pass the clock's now. */
  nowMs?: number;
  /** Mean sessions per install per week. */
  sessionsPerWeek?: number;
  /** Mean observer turns per session. */
  turnsPerSession?: number;
}

/** `nowMs` defaults to a fixed instant only so that a call without a clock stays reproducible. */
const DEFAULT_FLEET = { seed: 42, installs: 150, weeks: 12, nowMs: Date.UTC(2026, 7, 19, 12), sessionsPerWeek: 3, turnsPerSession: 12 } as const;

const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * 24 * HOUR_MS;
/** 1970-01-05 was a Monday. */
const MONDAY_MS = 4 * 24 * HOUR_MS;
const TRANSIENT = ['rate_limit', 'overloaded', 'transport'] as const;
/** Share of installs per agent host. */
const HOST_MIX = { 'claude-code': 0.8, 'gemini-cli': 0.1, codex: 0.1 } as const;
/** Hosts are drawn from their own stream, so adding them left every other draw of a seed as it was. */
const HOST_STREAM = 0x5eed;

export const mondayOf = (ms: number) => Math.floor((ms - MONDAY_MS) / WEEK_MS) * WEEK_MS + MONDAY_MS;

/** Legacy installs move to memtrace over the middle of the span; 0.2.0 ships at 60 % and spreads faster. */
export function fleetCurves(weeks: number): { memtrace: AdoptionCurve; secondRelease: number; second: AdoptionCurve } {
  const secondRelease = Math.floor(weeks * 0.6);
  return { memtrace: { midWeek: weeks * 0.45, spreadWeeks: weeks / 10 }, secondRelease, second: { midWeek: secondRelease + 1.5, spreadWeeks: 1 } };
}

function uuidFrom(random: Random): string {
  const word = () => Math.floor(random() * 0x1_0000_0000).toString(16).padStart(8, '0');
  const [a, b, c, d] = [word(), word(), word(), word()];
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${'89ab'[Math.floor(random() * 4)]}${c.slice(1, 4)}-${c.slice(4, 8)}${d}`;
}

/** Yields the fleet's events install by install; pure, so the same options give the same events. */
export function* generateFleet(options: FleetOptions = {}): Generator<CollectedEvent> {
  const o = { ...DEFAULT_FLEET, ...options };
  const random = seededRandom(o.seed);
  // A stream of its own, so that adding agent time left every other simulated value as it was.
  const agentRandom = seededRandom((o.seed * 104_729 + 31) >>> 0);
  const hostRandom = seededRandom(o.seed ^ HOST_STREAM);
  const uuid = () => uuidFrom(random);
  const memoryRandom = seededRandom(o.seed * 7919 + 17);
  const firstWeekMs = mondayOf(o.nowMs) - (o.weeks - 1) * WEEK_MS;
  const curves = fleetCurves(o.weeks);
  const weights = Object.fromEntries(MODELS.map((m) => [m.id, m.weight]));
  for (let i = 0; i < o.installs; i += 1) {
    const distinctId = uuid();
    const host = pickWeighted(hostRandom, HOST_MIX);
    const modelId = pickWeighted(random, weights);
    const model = MODELS.find((m) => m.id === modelId)!;
    const toMemtrace = upgradeWeek(curves.memtrace, random);
    const toSecond = Math.max(toMemtrace, upgradeWeek(curves.second, random));
    const legacyVersion = random() < 0.35 ? LEGACY_VERSIONS[0] : LEGACY_VERSIONS[1];
    const activity = 0.3 + 1.7 * random();
    const base = { os: pickWeighted(random, { linux: 0.45, darwin: 0.45, win32: 0.1 }), arch: random() < 0.6 ? 'arm64' : 'x64', node_version: random() < 0.7 ? 'v20.20.2' : 'v22.12.0', is_ci: random() < 0.03 };
    // Some installs inject little memory per session, so injection can cost more than it saves.
    const injectedMean = random() < 0.08 ? 1.5 : 4 + 10 * random();
    const memory = memoryProfile(memoryRandom);
    for (let week = 0; week < o.weeks; week += 1) {
      const sessions = Math.round(o.sessionsPerWeek * activity * (0.5 + random()));
      for (let s = 0; s < sessions; s += 1) {
        const weekAt = random();
        const start = firstWeekMs + week * WEEK_MS + Math.floor(weekAt * (WEEK_MS - 2 * HOUR_MS));
        const turns = Math.max(1, Math.round(o.turnsPerSession * (0.4 + 1.2 * random())));
        const injected = Math.max(0, Math.round(injectedMean * (0.5 + random())));
        const end = start + 5_000 + turns * 25_000;
        if (end + 600_000 > o.nowMs) continue; // not yet happened
        // Upgrades happen during a week, so a session's version follows its own instant on the curve.
        const at = week + weekAt;
        const version = at < toMemtrace ? legacyVersion : at < toSecond ? MEMTRACE_VERSIONS[0] : MEMTRACE_VERSIONS[1];
        const versionProps = version === '13.5.2' ? { $app_version: version } : { app_version: version };
        const platform = version === MEMTRACE_VERSIONS[1] ? { platform: host } : {};
        const injectedTokens = 450 + injected * 70;
        const savedTokens = injected * Math.round(700 + 900 * random()) - injectedTokens;
        const events: CollectedEvent[] = [];
        if (at < toMemtrace) {
          const context = { ...base, ...versionProps, observations_injected: injected, tokens_injected: injectedTokens, tokens_saved_vs_naive: savedTokens };
          events.push({ uuid: uuid(), event: LEGACY_CONTEXT, distinctId, timestamp: start, properties: context });
          for (let t = 0; t < turns; t += 1) {
            events.push({ uuid: uuid(), event: LEGACY, distinctId, timestamp: start + 5_000 + t * 25_000, properties: { ...base, ...versionProps, model: model.id, ...legacyTurn(random, model) } });
          }
        } else {
          events.push({ uuid: uuid(), event: ROLLUP, distinctId, timestamp: end, properties: { ...base, ...versionProps, ...platform, ...rollup(random, model, turns), rollup_reason: random() < 0.93 ? 'session_end' : 'worker_shutdown', window_seq: 0, window_start_ts: start } });
          events.push({
            uuid: uuid(),
            event: CONTEXT_ROLLUP,
            distinctId,
            timestamp: start + 300_000,
            properties: { ...base, ...versionProps, count: 1, outcomes_ok: 1, outcomes_error: 0, total_tokens: injectedTokens, avg_tokens: injectedTokens, total_observations_injected: injected, total_tokens_saved_vs_naive: savedTokens, window_start_ts: start },
          });
          for (const w of sessionHookWindows(random, version, start, end, turns + Math.floor(turns * random()))) {
            events.push({ uuid: uuid(), event: HOOK_ROLLUP, distinctId, timestamp: w.timestamp, properties: { ...base, ...versionProps, ...platform, ...w.properties } });
          }
        }
        // Agent time and redaction ship after 0.1.0: only later releases count them.
        if (version === MEMTRACE_VERSIONS[1]) {
          const share = sessionAgentTime(agentRandom, version, host, start, end);
          events.push({ uuid: uuidFrom(agentRandom), event: AGENT_TIME_ROLLUP, distinctId, timestamp: share.timestamp, properties: { ...base, ...versionProps, ...share.properties } });
          for (const w of sessionRedactionWindows(random, start, end)) {
            events.push({ uuid: uuid(), event: REDACTION_ROLLUP, distinctId, timestamp: w.timestamp, properties: { ...base, ...versionProps, ...w.properties } });
          }
        }
        if (version === MEMTRACE_VERSIONS[MEMTRACE_VERSIONS.length - 1]) {
          for (const w of sessionMemoryWindows(memoryRandom, memory, start)) {
            events.push({ uuid: uuidFrom(memoryRandom), event: MEMORY_ROLLUP, distinctId, timestamp: w.timestamp, properties: { ...base, ...versionProps, ...w.properties } });
          }
        }
        // A session its host could not have run yet is drawn all the same, so the rest of the fleet stays as the seed made it.
        if (host === 'claude-code' || version === MEMTRACE_VERSIONS[1]) yield* events;
      }
    }
  }
}

/** The whole fleet as an array (the default is about 60 k events). */
export function simulateFleet(options: FleetOptions = {}): CollectedEvent[] {
  return [...generateFleet(options)];
}

/** Cost rounded to the micro-dollar, as the legacy events and the rollups report it. */
const usd = (n: number) => Math.round(n * 1e6) / 1e6;

function legacyTurn(random: Random, model: ModelProfile): Record<string, unknown> {
  const r = random();
  const p = model.poisonedShare;
  if (r < p) return { outcome: 'aborted', abort_reason: 'poisoned', invalid_output_class: 'poisoned' };
  if (r < p + 0.06) return { outcome: 'invalid_output', invalid_output_class: pickWeighted(random, { prose: 0.45, idle: 0.4, xml: 0.15 }) };
  if (r < p + 0.09) return { outcome: 'aborted', abort_reason: random() < 0.9 ? TRANSIENT[Math.floor(random() * TRANSIENT.length)] : random() < 0.5 ? 'quota' : 'auth' };
  const observations = Math.floor(random() * 3.2);
  const tokens = turnTokens(random);
  // About one turn in twenty had no usage reported: its cost is unknown, so it is left out.
  const cost = random() < 0.05 ? {} : { cost_usd: usd(turnCostUsd(model, tokens.input, tokens.output)) };
  return { outcome: 'ok', invalid_output_class: 'xml', observations_created: observations, ...cost };
}

function rollup(random: Random, model: ModelProfile, turns: number): Record<string, unknown> {
  const c: Record<string, number> = { count: turns, turns_parsed: 0, turns_dropped: 0, invalid_class_idle: 0, invalid_class_prose: 0, invalid_class_malformed_xml: 0, outcomes_ok: 0, outcomes_error: 0, outcomes_aborted: 0 };
  for (const reason of ABORT_REASONS) c[`abort_reason_${reason}`] = 0;
  for (const type of OBSERVATION_TYPES) c[`obs_type_${type}`] = 0;
  const bump = (key: string, by = 1) => {
    c[key] = (c[key] ?? 0) + by;
  };
  const p = model.poisonedShare;
  let observations = 0;
  let cost = 0;
  let unknownUsage = 0;
  let tokensIn = 0;
  let tokensOut = 0;
  for (let t = 0; t < turns; t += 1) {
    const r = random();
    if (r < p + 0.03) {
      // The closure-phrase replies the legacy classifier called poisoned: dropped as prose, session goes on.
      bump('turns_dropped');
      bump('invalid_class_prose');
      bump('outcomes_ok');
    } else if (r < p + 0.055) {
      bump('turns_dropped');
      bump(random() < 0.85 ? 'invalid_class_idle' : 'invalid_class_malformed_xml');
      bump('outcomes_ok');
    } else if (r < p + 0.08) {
      bump('outcomes_error');
      bump(`abort_reason_${TRANSIENT[Math.floor(random() * TRANSIENT.length)]}`);
      continue;
    } else if (r < p + 0.085) {
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
      const tokens = turnTokens(random);
      tokensIn += tokens.input;
      tokensOut += tokens.output;
      cost += turnCostUsd(model, tokens.input, tokens.output);
    }
  }
  const known = turns - c.outcomes_error! - c.outcomes_aborted! - unknownUsage;
  // Absent is not zero: with no turn's usage known, tokens and cost are left out.
  const usage = known > 0 ? { total_tokens_input: tokensIn, total_tokens_output: tokensOut, total_cost_usd: usd(cost) } : {};
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
