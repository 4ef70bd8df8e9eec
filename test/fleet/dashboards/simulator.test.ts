import { describe, expect, it } from 'vitest';
import {
  adoptedShare,
  fleetCurves,
  HOOK_BUCKETS,
  LEGACY_VERSIONS,
  MEMTRACE_VERSIONS,
  MODELS,
  mondayOf,
  REDACTION_KINDS,
  redactionMeasure,
  simulateFleet,
} from '../../../src/fleet/dashboards/index.js';
import { openCollectorStore } from '../../../src/fleet/collector/index.js';

const NOW = Date.UTC(2026, 10, 18, 15); // a Wednesday
const WEEK = 604_800_000;

describe('the fleet simulator', () => {
  const events = simulateFleet({ seed: 5, installs: 300, weeks: 12, nowMs: NOW });
  const store = openCollectorStore(':memory:');
  store.insert(events);
  const tiles = Object.fromEntries(store.tiles.read().map((r) => [r.tile.id, r.rows]));

  it('ends its weeks at the current week and dates nothing after now', () => {
    const weeks = [...new Set(events.map((e) => mondayOf(e.timestamp)))].sort((a, b) => a - b);
    expect(weeks.at(-1)).toBe(mondayOf(NOW));
    expect(weeks[0]).toBe(mondayOf(NOW) - 11 * WEEK);
    expect(Math.max(...events.map((e) => e.timestamp))).toBeLessThanOrEqual(NOW);
  });

  it('prices each model as its provider does: cost per observation follows the price list', () => {
    const rows = tiles['cost-per-observation'] as Array<{ x: string; usd_per_observation: number }>;
    const cost = (id: string) => rows.find((r) => r.x === id)!.usd_per_observation;
    const price = (id: string) => MODELS.find((m) => m.id === id)!;
    expect(cost('claude-opus-4-7')).toBeGreaterThan(cost('claude-sonnet-4-6'));
    expect(cost('claude-sonnet-4-6')).toBeGreaterThan(cost('claude-haiku-4-5-20251001'));
    expect(cost('claude-haiku-4-5-20251001')).toBeGreaterThan(cost('gemini-2.5-flash-lite'));
    expect(cost('openai/gpt-oss-120b:free')).toBe(0);
    // Same token mix per call, so costs follow prices; a model whose replies are dropped more
    // often (haiku) pays for more calls per stored observation, which narrows the gap a little.
    const sonnetOverHaikuCost = cost('claude-sonnet-4-6') / cost('claude-haiku-4-5-20251001');
    const sonnetOverHaikuPrice = price('claude-sonnet-4-6').usdPerMillionInput / price('claude-haiku-4-5-20251001').usdPerMillionInput;
    expect(sonnetOverHaikuCost).toBeGreaterThan(sonnetOverHaikuPrice * 0.7);
    expect(sonnetOverHaikuCost).toBeLessThan(sonnetOverHaikuPrice * 1.1);
  });

  it('upgrades installs along the adoption curve', () => {
    const curve = fleetCurves(12).memtrace;
    const firstMonday = mondayOf(NOW) - 11 * WEEK;
    for (let week = 1; week < 11; week += 1) {
      const inWeek = events.filter((e) => e.timestamp >= firstMonday + week * WEEK && e.timestamp < firstMonday + (week + 1) * WEEK);
      const versionOf = new Map<string, boolean>();
      for (const e of inWeek) {
        const version = String(e.properties.app_version ?? e.properties.$app_version);
        if (!versionOf.has(e.distinctId)) versionOf.set(e.distinctId, !(LEGACY_VERSIONS as readonly string[]).includes(version));
      }
      const upgraded = [...versionOf.values()].filter(Boolean).length / versionOf.size;
      expect(Math.abs(upgraded - adoptedShare(curve, week + 0.5))).toBeLessThan(0.12);
    }
  });

  it('models the hook cost per release: about 600 ms per call on 0.1.x, 60–80 ms on 0.2.x', () => {
    const rows = tiles['hook-cost'] as Array<{ series: string; mean_ms: number; p50_ms: number; calls: number }>;
    // The bucket estimate of the median lands in the right bucket for each release.
    for (const r of rows) expect(r.p50_ms).toSatisfy((p: number) => (r.series === '0.1.0' ? p > 500 && p <= 1000 : p > 50 && p <= 100));
    const mean = (version: string) => {
      const r = rows.filter((row) => row.series === version);
      return r.reduce((n, row) => n + row.mean_ms * row.calls, 0) / r.reduce((n, row) => n + row.calls, 0);
    };
    expect(mean('0.1.0')).toBeGreaterThan(550);
    expect(mean('0.1.0')).toBeLessThan(700);
    expect(mean('0.2.0')).toBeGreaterThan(60);
    expect(mean('0.2.0')).toBeLessThan(80);
    for (const e of events.filter((x) => x.event === 'hook_rollup')) {
      expect(HOOK_BUCKETS.reduce((n, b) => n + Number(e.properties[b.key]), 0)).toBe(e.properties.count);
    }
  });

  it('counts secrets kept out by kind from the release that redacts, and none caught only by the final guard', () => {
    const rows = tiles['secrets-redacted'] as Array<Record<string, number | string>>;
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.caught_by_final_guard).toBe(0);
    const byKind = Object.fromEntries(REDACTION_KINDS.map((k) => [k, rows.reduce((n, r) => n + Number(r[redactionMeasure(k)]), 0)]));
    expect(byKind.authorization_header).toBeGreaterThan(byKind.stripe_key!);
    const redacting = events.filter((e) => e.event === 'redaction_rollup');
    expect(redacting.every((e) => e.properties.app_version !== MEMTRACE_VERSIONS[0])).toBe(true);
    for (const e of redacting) expect(REDACTION_KINDS.reduce((n, k) => n + Number(e.properties[k] ?? 0), 0)).toBe(e.properties.total);
  });

  it('models memory search on the latest release: most active installs search, mostly through MCP', () => {
    const rows = tiles['memory-searches'] as Array<{
      x: string;
      searches: number;
      via_mcp: number;
      via_cli: number;
      via_viewer: number;
      empty_share: number | null;
      ranked_of: number;
      ranked_above_zero: number;
    }>;
    // The tile keeps the ends of its ranking; every row carries the counts over all installs.
    const { ranked_of: active, ranked_above_zero: searchingInstalls } = rows[0]!;
    expect(active).toBeGreaterThan(200);
    expect(searchingInstalls / active).toBeGreaterThan(0.5);
    expect(searchingInstalls / active).toBeLessThan(0.9);
    const searching = rows.filter((r) => r.searches > 0);
    const total = (key: 'via_mcp' | 'via_cli' | 'via_viewer') => rows.reduce((n, r) => n + r[key], 0);
    expect(total('via_mcp')).toBeGreaterThan(total('via_cli'));
    expect(total('via_cli')).toBeGreaterThan(total('via_viewer'));
    for (const r of searching) expect(r.searches).toBe(r.via_mcp + r.via_cli + r.via_viewer);
    const memory = events.filter((e) => e.event === 'memory_access_rollup');
    expect(memory.every((e) => e.properties.app_version === '0.2.0')).toBe(true);
  });
});
