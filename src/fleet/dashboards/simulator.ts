import type { CollectedEvent } from '../collector/collected-event.js';
import { LEGACY_VERSIONS, MEMTRACE_VERSIONS, MODELS, pickWeighted, upgradeWeek, type AdoptionCurve } from './fleet-model.js';
import { effectFactors, NO_EFFECT, type EffectFactors, type SimulatedEffect } from './fleet-effects.js';
import { legacyTurn, observerTurnRollup } from './observer-turn-model.js';
import { sessionAgentTime } from './agent-time-model.js';
import { sessionHookWindows } from './hook-model.js';
import { memoryProfile, sessionMemoryWindows } from './memory-model.js';
import { sessionRedactionWindows } from './redaction-model.js';
import { sessionShareWindows, shareProfile } from './share-model.js';
import { seededRandom, type Random } from './prng.js';
import {
  AGENT_TIME_ROLLUP,
  CONTEXT_ROLLUP,
  HOOK_ROLLUP,
  LEGACY,
  LEGACY_CONTEXT,
  MEMORY_ROLLUP,
  REDACTION_ROLLUP,
  ROLLUP,
  SHARE_ROLLUP,
} from './fleet-measures.js';

/**
 * A mixed fleet, pure and seeded. Installs on legacy releases send one `session_compressed` per
 * observer turn, killed as `poisoned` at the rate the legacy fleet showed for their model; each
 * install moves to memtrace 0.1.0 in a week drawn from the adoption curve, then to 0.2.0 along a
 * second curve once it is released. On memtrace an install sends per session one
 * `observer_turn_rollup`, one `context_injected_rollup`, its `hook_rollup` windows and, from 0.2.0
 * on, its `agent_time_rollup`, a `redaction_rollup` when its tool calls held secrets and its
 * `memory_access_rollup` windows and, on a quarter of installs, its `share_rollup` (0.2.0 stands for the release with memory search and sharing; later releases
 * keep all of these), the new ones drawn from random streams of their own so every other event
 * stays as it was. What the legacy classifier killed, memtrace drops as prose and carries on: no
 * poisoned slice.
 * Each install runs one agent host. Gemini CLI and Codex installs start with the second memtrace
 * release (the first with their adapters), whose rollups name the `platform`; the legacy fleet and
 * the first release ran on Claude Code only, and their rollups do not name it.
 * The last simulated week is the week of `nowMs`, and nothing is dated after `nowMs`.
 * `releases` adds later memtrace releases, each shipping later in the span; `effects` moves one
 * measure on one version by a known factor, for checking the release review against the truth.
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
  /** memtrace's releases in order (default 0.1.0, 0.2.0). */
  releases?: readonly string[];
  effects?: readonly SimulatedEffect[];
  /**
   * Build only these events. The others are still drawn, so the events built are exactly those
   * of the whole fleet; a caller that reads one kind skips building the rest.
   */
  events?: readonly string[];
}

/** `nowMs` defaults to a fixed instant only so that a call without a clock stays reproducible. */
export const DEFAULT_FLEET = { seed: 42, installs: 150, weeks: 12, nowMs: Date.UTC(2026, 7, 19, 12), sessionsPerWeek: 3, turnsPerSession: 12 } as const;

const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * 24 * HOUR_MS;
/** 1970-01-05 was a Monday. */
const MONDAY_MS = 4 * 24 * HOUR_MS;
const OS_MIX = { linux: 0.45, darwin: 0.45, win32: 0.1 } as const;
/** Share of installs per agent host. */
const HOST_MIX = { 'claude-code': 0.8, 'gemini-cli': 0.1, codex: 0.1 } as const;
/** Hosts are drawn from their own stream, so adding them left every other draw of a seed as it was. */
const HOST_STREAM = 0x5eed;

export const mondayOf = (ms: number) => Math.floor((ms - MONDAY_MS) / WEEK_MS) * WEEK_MS + MONDAY_MS;

/** The week memtrace's k-th later release ships (k = 1 for 0.2.0): at 60 %, 80 %, 90 %, … of the span. */
export function releaseWeek(weeks: number, k: number): number {
  return Math.floor(weeks * (1 - 0.4 / 2 ** (k - 1)));
}

/** A later release spreads faster than the first move off the legacy releases. */
const laterRelease = (weeks: number, k: number): AdoptionCurve => ({ midWeek: releaseWeek(weeks, k) + 1.5, spreadWeeks: 1 });

/** Legacy installs move to memtrace over the middle of the span; 0.2.0 ships at 60 % and spreads faster. */
export function fleetCurves(weeks: number): { memtrace: AdoptionCurve; secondRelease: number; second: AdoptionCurve } {
  return { memtrace: { midWeek: weeks * 0.45, spreadWeeks: weeks / 10 }, secondRelease: releaseWeek(weeks, 1), second: laterRelease(weeks, 1) };
}

const HEX = '0123456789abcdef';

/** 32 bits as 8 hex digits; written out because Number#toString(16) is the simulator's slowest step. */
function hex8(n: number): string {
  let out = '';
  for (let shift = 28; shift >= 0; shift -= 4) out += HEX[(n >>> shift) & 15];
  return out;
}

function uuidFrom(random: Random): string {
  const word = () => hex8(Math.floor(random() * 0x1_0000_0000));
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
  // Sharing draws from a stream of its own too: the fleets made before it stay as they were.
  const shareRandom = seededRandom((o.seed * 65_537 + 101) >>> 0);
  const firstWeekMs = mondayOf(o.nowMs) - (o.weeks - 1) * WEEK_MS;
  const curves = fleetCurves(o.weeks);
  const releases = o.releases ?? MEMTRACE_VERSIONS;
  if (releases.length === 0) throw new RangeError('a simulated fleet needs at least one memtrace release');
  const effects = o.effects ?? [];
  const factors = new Map<string, EffectFactors>();
  const factorsOf = (version: string) => {
    let f = factors.get(version);
    if (f === undefined) {
      f = effects.length === 0 ? NO_EFFECT : effectFactors(effects, version);
      factors.set(version, f);
    }
    return f;
  };
  const wanted = o.events === undefined ? null : new Set(o.events);
  const builds = (event: string) => wanted === null || wanted.has(event);
  const weights = Object.fromEntries(MODELS.map((m) => [m.id, m.weight]));
  for (let i = 0; i < o.installs; i += 1) {
    const distinctId = uuid();
    const host = pickWeighted(hostRandom, HOST_MIX);
    const modelId = pickWeighted(random, weights);
    const model = MODELS.find((m) => m.id === modelId)!;
    // upgrades[k]: the week this install moves to releases[k].
    const upgrades = [upgradeWeek(curves.memtrace, random)];
    for (let k = 1; k < releases.length; k += 1) upgrades.push(Math.max(upgrades[k - 1]!, upgradeWeek(laterRelease(o.weeks, k), random)));
    const toMemtrace = upgrades[0]!;
    const legacyVersion = random() < 0.35 ? LEGACY_VERSIONS[0] : LEGACY_VERSIONS[1];
    const activity = 0.3 + 1.7 * random();
    const base = {
      os: pickWeighted(random, OS_MIX),
      arch: random() < 0.6 ? 'arm64' : 'x64',
      node_version: random() < 0.7 ? 'v20.20.2' : 'v22.12.0',
      is_ci: random() < 0.03,
    };
    // Some installs inject little memory per session, so injection can cost more than it saves.
    const injectedMean = random() < 0.08 ? 1.5 : 4 + 10 * random();
    const memory = memoryProfile(memoryRandom);
    const sharing = shareProfile(shareRandom);
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
        let release = 0;
        while (release + 1 < releases.length && at >= upgrades[release + 1]!) release += 1;
        const onMemtrace = at >= toMemtrace;
        const version = onMemtrace ? releases[release]! : legacyVersion;
        // The second release brought the other hosts' adapters, agent time and redaction; memory search came with MEMTRACE_VERSIONS' last.
        const laterMemtrace = onMemtrace && release >= 1;
        const withMemorySearch = onMemtrace && release >= MEMTRACE_VERSIONS.length - 1;
        const effect = factorsOf(version);
        const versionProps = version === '13.5.2' ? { $app_version: version } : { app_version: version };
        const platform = laterMemtrace ? { platform: host } : {};
        const injectedTokens = 450 + injected * 70;
        const rawSaved = injected * Math.round(700 + 900 * random()) - injectedTokens;
        const savedTokens = effect.saved === 1 ? rawSaved : Math.round(rawSaved * effect.saved);
        // Ids and values are drawn in the same order whether or not an event is built.
        const events: CollectedEvent[] = [];
        if (!onMemtrace) {
          const contextId = uuid();
          if (builds(LEGACY_CONTEXT)) {
            const context = { ...base, ...versionProps, observations_injected: injected, tokens_injected: injectedTokens, tokens_saved_vs_naive: savedTokens };
            events.push({ uuid: contextId, event: LEGACY_CONTEXT, distinctId, timestamp: start, properties: context });
          }
          for (let t = 0; t < turns; t += 1) {
            const id = uuid();
            const turn = legacyTurn(random, model, effect);
            if (builds(LEGACY))
              events.push({
                uuid: id,
                event: LEGACY,
                distinctId,
                timestamp: start + 5_000 + t * 25_000,
                properties: { ...base, ...versionProps, model: model.id, ...turn },
              });
          }
        } else {
          const rollupId = uuid();
          const counters = observerTurnRollup(random, model, turns, effect);
          const reason = random() < 0.93 ? 'session_end' : 'worker_shutdown';
          if (builds(ROLLUP))
            events.push({
              uuid: rollupId,
              event: ROLLUP,
              distinctId,
              timestamp: end,
              properties: { ...base, ...versionProps, ...platform, ...counters, rollup_reason: reason, window_seq: 0, window_start_ts: start },
            });
          const contextId = uuid();
          if (builds(CONTEXT_ROLLUP)) {
            events.push({
              uuid: contextId,
              event: CONTEXT_ROLLUP,
              distinctId,
              timestamp: start + 300_000,
              properties: {
                ...base,
                ...versionProps,
                count: 1,
                outcomes_ok: 1,
                outcomes_error: 0,
                total_tokens: injectedTokens,
                avg_tokens: injectedTokens,
                total_observations_injected: injected,
                total_tokens_saved_vs_naive: savedTokens,
                window_start_ts: start,
              },
            });
          }
          for (const w of sessionHookWindows(random, version, start, end, turns + Math.floor(turns * random()), effect.hookMs)) {
            const id = uuid();
            if (builds(HOOK_ROLLUP))
              events.push({
                uuid: id,
                event: HOOK_ROLLUP,
                distinctId,
                timestamp: w.timestamp,
                properties: { ...base, ...versionProps, ...platform, ...w.properties },
              });
          }
        }
        if (laterMemtrace) {
          const share = sessionAgentTime(agentRandom, version, host, start, end);
          const shareId = uuidFrom(agentRandom);
          if (builds(AGENT_TIME_ROLLUP))
            events.push({
              uuid: shareId,
              event: AGENT_TIME_ROLLUP,
              distinctId,
              timestamp: share.timestamp,
              properties: { ...base, ...versionProps, ...share.properties },
            });
          for (const w of sessionRedactionWindows(random, start, end)) {
            const id = uuid();
            if (builds(REDACTION_ROLLUP))
              events.push({ uuid: id, event: REDACTION_ROLLUP, distinctId, timestamp: w.timestamp, properties: { ...base, ...versionProps, ...w.properties } });
          }
        }
        if (withMemorySearch) {
          for (const w of sessionMemoryWindows(memoryRandom, memory, start)) {
            const id = uuidFrom(memoryRandom);
            if (builds(MEMORY_ROLLUP))
              events.push({ uuid: id, event: MEMORY_ROLLUP, distinctId, timestamp: w.timestamp, properties: { ...base, ...versionProps, ...w.properties } });
          }
          for (const w of sessionShareWindows(shareRandom, sharing, end)) {
            const id = uuidFrom(shareRandom);
            if (builds(SHARE_ROLLUP))
              events.push({ uuid: id, event: SHARE_ROLLUP, distinctId, timestamp: w.timestamp, properties: { ...base, ...versionProps, ...w.properties } });
          }
        }
        // A session its host could not have run yet is drawn all the same, so the rest of the fleet stays as the seed made it.
        if (host === 'claude-code' || laterMemtrace) yield* events;
      }
    }
  }
}

/** The whole fleet as an array (the default is about 60 k events). */
export function simulateFleet(options: FleetOptions = {}): CollectedEvent[] {
  return [...generateFleet(options)];
}
