import { describe, expect, it } from 'vitest';
import { openCollectorStore, type CollectedEvent } from '../../../src/telemetry/collector/index.js';
import { compileHogQL, LEGACY_VERSIONS, MEMTRACE_VERSIONS, runTiles, simulateFleet, TILES } from '../../../src/telemetry/dashboards/index.js';

const byId = (id: string) => TILES.find((t) => t.id === id)!;

describe('the seven tiles', () => {
  it('have the names of SPEC §4.7', () => {
    expect(TILES.map((t) => t.name)).toEqual([
      'Session abort reasons',
      'Compression invalid-output classes',
      'Poisoned-slice decay',
      'Cost per observation by model',
      'Observation types by model',
      'Context-cache value',
      'Tokens saved vs naive per install',
    ]);
  });
});

describe('poisoned-slice decay on the simulated fleet', () => {
  const store = openCollectorStore(':memory:');
  store.insert(simulateFleet({ seed: 7 }));
  const rows = runTiles(store.db, [byId('poisoned-decay')])[0]!.rows as Array<{ x: string; series: string; poisoned_share: number }>;

  it('falls from the first week to the last', () => {
    const weekly = new Map<string, { poisoned: number; turns: number }>();
    // Fleet-wide weekly share from the per-version rows needs the turn counts; recompute from the store.
    const perWeek = store.db
      .prepare("SELECT date(timestamp / 1000, 'unixepoch', '-6 days', 'weekday 1') AS week, sum(CASE WHEN event = 'session_compressed' AND properties ->> '$.abort_reason' = 'poisoned' THEN 1 ELSE 0 END) AS poisoned, sum(CASE WHEN event = 'observer_turn_rollup' THEN properties ->> '$.count' ELSE 1 END) AS turns FROM events WHERE event IN ('session_compressed', 'observer_turn_rollup') GROUP BY week ORDER BY week")
      .all() as Array<{ week: string; poisoned: number; turns: number }>;
    for (const r of perWeek) weekly.set(r.week, r);
    const shares = perWeek.map((r) => r.poisoned / r.turns);
    expect(shares[0]!).toBeGreaterThan(0.1);
    expect(shares.at(-1)!).toBeLessThan(shares[0]! / 5);
    expect(weekly.size).toBe(12);
  });

  it('shows a share above zero for legacy versions and exactly zero for memtrace versions', () => {
    const legacy = rows.filter((r) => LEGACY_VERSIONS.includes(r.series));
    const memtrace = rows.filter((r) => MEMTRACE_VERSIONS.includes(r.series));
    expect(legacy.length).toBeGreaterThan(0);
    expect(memtrace.length).toBeGreaterThan(0);
    expect(legacy.every((r) => r.poisoned_share > 0)).toBe(true);
    expect(memtrace.every((r) => r.poisoned_share === 0)).toBe(true);
  });

  it('follows the seed table by model: haiku far above the small free models', () => {
    const shares = store.db
      .prepare("SELECT properties ->> '$.model' AS model, avg(CASE WHEN properties ->> '$.abort_reason' = 'poisoned' THEN 1.0 ELSE 0 END) AS share FROM events WHERE event = 'session_compressed' GROUP BY model")
      .all() as Array<{ model: string; share: number }>;
    const share = (m: string) => shares.find((s) => s.model === m)!.share;
    expect(share('haiku')).toBeGreaterThan(0.3);
    expect(share('gemini-2.5-flash-lite')).toBeLessThan(0.02);
  });
});

describe('one definition, two compilers', () => {
  const t0 = Date.UTC(2026, 5, 1, 12); // a Monday
  const fixture: CollectedEvent[] = [
    { uuid: '00000000-0000-4000-8000-000000000001', event: 'session_compressed', distinctId: 'a', timestamp: t0, properties: { app_version: '13.6.0', model: 'haiku', outcome: 'aborted', abort_reason: 'poisoned', invalid_output_class: 'poisoned' } },
    { uuid: '00000000-0000-4000-8000-000000000002', event: 'session_compressed', distinctId: 'a', timestamp: t0 + 1, properties: { app_version: '13.6.0', model: 'haiku', outcome: 'ok', invalid_output_class: 'xml', observations_created: 2, cost_usd: 0.004 } },
    { uuid: '00000000-0000-4000-8000-000000000003', event: 'session_compressed', distinctId: 'a', timestamp: t0 + 2, properties: { app_version: '13.6.0', model: 'haiku', outcome: 'invalid_output', invalid_output_class: 'prose' } },
    { uuid: '00000000-0000-4000-8000-000000000004', event: 'observer_turn_rollup', distinctId: 'b', timestamp: t0 + 3, properties: { app_version: '0.1.0', top_model: 'claude-haiku-4-5', count: 7, invalid_class_prose: 2, abort_reason_rate_limit: 1, observations_created: 4, obs_type_bugfix: 3, obs_type_decision: 1, total_cost_usd: 0.006 } },
    { uuid: '00000000-0000-4000-8000-000000000005', event: 'context_injected_rollup', distinctId: 'b', timestamp: t0 + 4, properties: { app_version: '0.1.0', count: 2, total_observations_injected: 10, total_tokens_saved_vs_naive: 5000 } },
  ];
  const store = openCollectorStore(':memory:');
  store.insert(fixture);
  // A duplicate delivery of the same uuid must not count twice.
  store.insert([fixture[0]!]);
  const results = Object.fromEntries(runTiles(store.db).map((r) => [r.tile.id, r.rows]));

  it('computes the expected numbers in SQLite', () => {
    expect(results['abort-reasons']).toEqual([{ x: '2026-06-01', quota: 0, auth: 0, rate_limit: 1, overloaded: 0, transport: 0, bad_request: 0, idle: 0, shutdown: 0, poisoned: 1 }]);
    expect(results['invalid-output-classes']).toEqual([{ x: '2026-06-01', idle: 0, prose: 3, malformed_xml: 0, poisoned: 1 }]);
    expect(results['poisoned-decay']).toEqual([
      { x: '2026-06-01', series: '0.1.0', poisoned_share: 0 },
      { x: '2026-06-01', series: '13.6.0', poisoned_share: 1 / 3 },
    ]);
    expect(results['cost-per-observation']).toEqual([
      { x: 'claude-haiku-4-5', usd_per_observation: 0.0015 },
      { x: 'haiku', usd_per_observation: 0.002 },
    ]);
    expect(results['observation-types']).toEqual([{ x: 'claude-haiku-4-5', bugfix: 3, feature: 0, refactor: 0, change: 0, discovery: 0, decision: 1, security: 0, other: 0 }]);
    expect(results['context-cache-value']![0]!.usd_value).toBeCloseTo(10 * (0.01 / 6));
    expect(results['tokens-saved']).toEqual([{ x: 'b', tokens_saved: 5000 }]);
  });

  it.each(TILES.map((t) => [t.name, t] as const))('compiles "%s" to HogQL that dedupes by uuid and reads the same events and properties', (_, tile) => {
    const hogql = compileHogQL(tile).sql;
    expect(hogql).toMatch(/^SELECT x, /);
    expect(hogql).toContain('FROM events WHERE event IN (');
    expect(hogql).toMatch(/GROUP BY uuid\) GROUP BY x/);
    for (const event of tile.events) expect(hogql).toContain(`'${event}'`);
    for (const m of tile.measures) expect(hogql).toContain(` AS ${m.name}`);
    expect(hogql).not.toContain('json_extract');
    expect((hogql.match(/\(/g) ?? []).length).toBe((hogql.match(/\)/g) ?? []).length);
  });
});
