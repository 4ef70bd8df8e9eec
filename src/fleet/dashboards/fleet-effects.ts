import { LEGACY_VERSIONS, MEMTRACE_VERSIONS } from './fleet-model.js';
import { compareVersions, VERSION_PATTERN } from './version-order.js';

/**
 * A known effect the simulator injects for one version, so a release review can be checked
 * against the truth: `turns_dropped_rate:-0.4@0.3.0` makes 0.3.0 drop 40 % fewer turns than
 * the same installs would on another release. Only measures whose generation has one clear
 * knob are supported; each is moved by exactly the factor asked, in expectation.
 */
export const SIMULATED_EFFECT_MEASURES = [
  'turns_dropped_rate',
  'poisoned_share',
  'observations_per_turn',
  'cost_per_observation',
  'tokens_saved_per_injection',
  'hook_ms_per_call',
] as const;
export type EffectMeasure = (typeof SIMULATED_EFFECT_MEASURES)[number];

export interface SimulatedEffect {
  measure: EffectMeasure;
  /** Relative change: -0.4 is 40 % lower. */
  change: number;
  version: string;
}

/** Relative changes are kept where every simulated probability stays a probability. */
const EFFECT_CHANGE_RANGE = { min: -0.9, max: 1 } as const;

const SPEC = /^([a-z_]+):([+-]?(?:\d+\.?\d*|\.\d+))@(.+)$/;

export type ParsedEffect = { ok: true; effect: SimulatedEffect } | { ok: false; reason: string };

/** `<measure>:<relative change>@<version>`, e.g. `turns_dropped_rate:-0.4@0.3.0`. */
export function parseEffect(text: string): ParsedEffect {
  const m = SPEC.exec(text.trim());
  if (!m) return { ok: false, reason: `--effect takes <measure>:<relative change>@<version> (like turns_dropped_rate:-0.4@0.3.0), got '${text}'` };
  const [, measure, rawChange, version] = m as unknown as [string, string, string, string];
  if (!(SIMULATED_EFFECT_MEASURES as readonly string[]).includes(measure))
    return { ok: false, reason: `--effect can move ${SIMULATED_EFFECT_MEASURES.join(', ')}; not '${measure}'` };
  const change = Number(rawChange);
  if (!(change >= EFFECT_CHANGE_RANGE.min && change <= EFFECT_CHANGE_RANGE.max))
    return {
      ok: false,
      reason: `--effect change must be between ${EFFECT_CHANGE_RANGE.min} and ${EFFECT_CHANGE_RANGE.max} (a relative change), got ${rawChange}`,
    };
  if (!VERSION_PATTERN.test(version)) return { ok: false, reason: `--effect version '${version}' is not a version number (like 0.3.0)` };
  const legacy = (LEGACY_VERSIONS as readonly string[]).includes(version);
  if (measure === 'poisoned_share' && !legacy)
    return { ok: false, reason: `poisoned_share is 0 on every memtrace release; an effect on it needs a legacy release (${LEGACY_VERSIONS.join(', ')})` };
  return { ok: true, effect: { measure: measure as EffectMeasure, change, version } };
}

/**
 * The memtrace releases a fleet with these effects runs: an effect on a version newer than every
 * release ships that version as the next release (so `@0.3.0` adds 0.3.0 to 0.1.0 and 0.2.0);
 * an older version the fleet never ran is refused.
 */
export function releasesFor(
  effects: readonly SimulatedEffect[],
  base: readonly string[] = MEMTRACE_VERSIONS,
): { ok: true; releases: string[] } | { ok: false; reason: string } {
  const releases = [...base];
  const known = new Set<string>([...LEGACY_VERSIONS, ...base]);
  const added = [...new Set(effects.map((e) => e.version).filter((v) => !known.has(v)))].sort(compareVersions);
  for (const version of added) {
    if (compareVersions(version, releases[releases.length - 1]!) <= 0) {
      return {
        ok: false,
        reason: `--effect version ${version} is not in the simulated fleet (${[...known].join(', ')}); only a version newer than ${releases[releases.length - 1]} can ship as a new release`,
      };
    }
    releases.push(version);
  }
  return { ok: true, releases };
}

/** How much each knob is scaled on one version (1 where no effect applies). */
export interface EffectFactors {
  dropped: number;
  poisoned: number;
  observations: number;
  cost: number;
  saved: number;
  hookMs: number;
}

const KNOB: Record<EffectMeasure, keyof EffectFactors> = {
  turns_dropped_rate: 'dropped',
  poisoned_share: 'poisoned',
  observations_per_turn: 'observations',
  cost_per_observation: 'cost',
  tokens_saved_per_injection: 'saved',
  hook_ms_per_call: 'hookMs',
};

export const NO_EFFECT: Readonly<EffectFactors> = { dropped: 1, poisoned: 1, observations: 1, cost: 1, saved: 1, hookMs: 1 };

export function effectFactors(effects: readonly SimulatedEffect[], version: string): EffectFactors {
  const f = { ...NO_EFFECT };
  for (const e of effects) if (e.version === version) f[KNOB[e.measure]] *= 1 + e.change;
  return f;
}
