import { describe, expect, it } from 'vitest';
import { openCollectorStore, type CollectedEvent } from '../../../src/fleet/collector/index.js';
import { compileHogQL, queryTilesDirect, simulateFleet, TILES, VERSION_NOISE_FLOOR } from '../../../src/fleet/dashboards/index.js';
import { LEGACY_VERSIONS, MEMTRACE_VERSIONS } from '../../../src/fleet/dashboards/index.js';

const NOW = Date.UTC(2026, 7, 19, 12);
/** Where a row of a tile that keeps its ranked ends stands. */
const ranked = (position: number, of: number, aboveZero: number) => ({ ranked_position: position, ranked_of: of, ranked_above_zero: aboveZero });

describe('the tiles', () => {
  it('are the seven of SPEC §4.7, then the hook cost, agent time, secrets, hosts, memory search and shared memory tiles', () => {
    expect(TILES.map((t) => t.name)).toEqual([
      'Session abort reasons',
      'Compression invalid-output classes',
      'Poisoned-slice decay',
      'Cost per observation by model',
      'Observation types by model',
      'Context-cache value',
      'Tokens saved vs naive per install',
      'Hook cost per tool call by version',
      'memtrace’s share of agent time',
      'Secrets kept out of storage, by kind',
      'Active installs and observer turns by host',
      'Memory searches per active install',
      'Shared memory: records delivered and delivery lag',
    ]);
  });
});

type DecayRow = { x: string; series: string; poisoned_share: number | null; turns: number; week_turns: number };

describe('poisoned-slice decay on the simulated fleet', () => {
  const store = openCollectorStore(':memory:');
  store.insert(simulateFleet({ seed: 7, nowMs: NOW }));
  const rows = store.tiles.read().find((r) => r.tile.id === 'poisoned-decay')!.rows as DecayRow[];
  const fleet = rows.filter((r) => r.series === 'all versions');
  const versions = rows.filter((r) => r.series !== 'all versions');

  it('heads each week with the fleet-wide share, every turn in the denominator', () => {
    expect(fleet).toHaveLength(12);
    for (const r of fleet) {
      expect(r.turns).toBe(r.week_turns);
      expect(r.turns).toBe(versions.filter((v) => v.x === r.x).reduce((n, v) => n + v.turns, 0));
    }
  });

  it('falls from the first week to the last', () => {
    const shares = fleet.map((r) => r.poisoned_share!);
    expect(shares[0]!).toBeGreaterThan(0.1);
    expect(shares.at(-1)!).toBeLessThan(shares[0]! / 5);
  });

  it('hides a version in the weeks it ran under the noise floor, so the last installs do not draw a rising tail', () => {
    const hidden = versions.filter((r) => r.poisoned_share === null);
    expect(hidden.length).toBeGreaterThan(0);
    for (const r of versions) expect(r.poisoned_share === null).toBe(r.turns < VERSION_NOISE_FLOOR * r.week_turns);
    const lastWeek = fleet.at(-1)!.x;
    expect(versions.filter((r) => r.x === lastWeek && (LEGACY_VERSIONS as readonly string[]).includes(r.series)).every((r) => r.poisoned_share === null)).toBe(
      true,
    );
  });

  it('shows legacy versions above zero and memtrace versions at exactly zero', () => {
    const shown = versions.filter((r) => r.poisoned_share !== null);
    const legacy = shown.filter((r) => (LEGACY_VERSIONS as readonly string[]).includes(r.series));
    const memtrace = shown.filter((r) => (MEMTRACE_VERSIONS as readonly string[]).includes(r.series));
    expect(legacy.length).toBeGreaterThan(0);
    expect(memtrace.length).toBeGreaterThan(0);
    expect(legacy.every((r) => r.poisoned_share! > 0)).toBe(true);
    expect(memtrace.every((r) => r.poisoned_share === 0)).toBe(true);
  });
});

describe('one definition, two compilers', () => {
  const t0 = Date.UTC(2026, 5, 1, 12); // a Monday
  const fixture: CollectedEvent[] = [
    {
      uuid: '00000000-0000-4000-8000-000000000001',
      event: 'session_compressed',
      distinctId: 'a',
      timestamp: t0,
      properties: { app_version: '13.6.0', model: 'haiku', outcome: 'aborted', abort_reason: 'poisoned', invalid_output_class: 'poisoned' },
    },
    {
      uuid: '00000000-0000-4000-8000-000000000002',
      event: 'session_compressed',
      distinctId: 'a',
      timestamp: t0 + 1,
      properties: { app_version: '13.6.0', model: 'haiku', outcome: 'ok', invalid_output_class: 'xml', observations_created: 2, cost_usd: 0.004 },
    },
    {
      uuid: '00000000-0000-4000-8000-000000000003',
      event: 'session_compressed',
      distinctId: 'a',
      timestamp: t0 + 2,
      properties: { app_version: '13.6.0', model: 'haiku', outcome: 'invalid_output', invalid_output_class: 'prose' },
    },
    {
      uuid: '00000000-0000-4000-8000-000000000004',
      event: 'observer_turn_rollup',
      distinctId: 'b',
      timestamp: t0 + 3,
      properties: {
        app_version: '0.1.0',
        top_model: 'claude-haiku-4-5',
        count: 7,
        invalid_class_prose: 2,
        abort_reason_rate_limit: 1,
        observations_created: 4,
        obs_type_bugfix: 3,
        obs_type_decision: 1,
        total_cost_usd: 0.006,
      },
    },
    {
      uuid: '00000000-0000-4000-8000-000000000005',
      event: 'context_injected_rollup',
      distinctId: 'b',
      timestamp: t0 + 4,
      properties: { app_version: '0.1.0', count: 2, total_observations_injected: 10, total_tokens_saved_vs_naive: 5000 },
    },
    {
      uuid: '00000000-0000-4000-8000-000000000006',
      event: 'hook_rollup',
      distinctId: 'b',
      timestamp: t0 + 5,
      properties: {
        app_version: '0.1.0',
        hook_event: 'post_tool_use',
        install_mode: 'settings',
        count: 4,
        total_ms: 2400,
        timeouts: 0,
        ms_le_500: 1,
        ms_le_1000: 3,
      },
    },
    {
      uuid: '00000000-0000-4000-8000-000000000007',
      event: 'hook_rollup',
      distinctId: 'b',
      timestamp: t0 + 6,
      properties: { app_version: '0.1.0', hook_event: 'session_start', install_mode: 'settings', count: 1, total_ms: 900 },
    },
    {
      uuid: '00000000-0000-4000-8000-000000000008',
      event: 'redaction_rollup',
      distinctId: 'b',
      timestamp: t0 + 7,
      properties: { app_version: '0.2.0', edge: 'hook_api', total: 3, github_token: 2, private: 1 },
    },
    {
      uuid: '00000000-0000-4000-8000-000000000009',
      event: 'redaction_rollup',
      distinctId: 'c',
      timestamp: t0 + 8,
      properties: { app_version: '0.2.0', edge: 'observer_guard', total: 1, jwt: 1 },
    },
    {
      uuid: '00000000-0000-4000-8000-00000000000b',
      event: 'memory_access_rollup',
      distinctId: 'b',
      timestamp: t0 + 7,
      properties: { app_version: '0.1.0', via: 'mcp', searches: 3, searches_empty: 1, observations_fetched: 2 },
    },
    {
      uuid: '00000000-0000-4000-8000-00000000000c',
      event: 'memory_access_rollup',
      distinctId: 'b',
      timestamp: t0 + 8,
      properties: { app_version: '0.1.0', via: 'cli', searches: 1, searches_empty: 0 },
    },
    {
      uuid: '00000000-0000-4000-8000-00000000000d',
      event: 'memory_access_rollup',
      distinctId: 'c',
      timestamp: t0 + 9,
      properties: { app_version: '0.1.0', via: 'viewer', searches: 0, observations_fetched: 1 },
    },
  ];
  const store = openCollectorStore(':memory:');
  store.insert(fixture);
  // A duplicate delivery of the same uuid must not count twice.
  store.insert([fixture[0]!]);
  const results = Object.fromEntries(store.tiles.read().map((r) => [r.tile.id, r.rows]));

  it('computes the expected numbers in SQLite', () => {
    expect(results['abort-reasons']).toEqual([
      { x: '2026-06-01', quota: 0, auth: 0, rate_limit: 1, overloaded: 0, transport: 0, bad_request: 0, idle: 0, shutdown: 0, poisoned: 1, other: 0 },
    ]);
    expect(results['invalid-output-classes']).toEqual([{ x: '2026-06-01', idle: 0, prose: 3, malformed_xml: 0, poisoned: 1 }]);
    expect(results['poisoned-decay']).toEqual([
      { x: '2026-06-01', series: 'all versions', poisoned_share: 0.1, poisoned_turns: 1, turns: 10, week_turns: 10 },
      { x: '2026-06-01', series: '0.1.0', poisoned_share: 0, poisoned_turns: 0, turns: 7, week_turns: 10 },
      { x: '2026-06-01', series: '13.6.0', poisoned_share: 1 / 3, poisoned_turns: 1, turns: 3, week_turns: 10 },
    ]);
    expect(results['cost-per-observation']).toEqual([
      { x: 'haiku', usd_per_observation: 0.002, cost_usd: 0.004, observations: 2 },
      { x: 'claude-haiku-4-5', usd_per_observation: 0.0015, cost_usd: 0.006, observations: 4 },
    ]);
    expect(results['observation-types']).toEqual([
      { x: 'claude-haiku-4-5', bugfix: 0.75, feature: 0, refactor: 0, change: 0, discovery: 0, decision: 0.25, security: 0, other: 0, observations: 4 },
    ]);
    expect(results['context-cache-value']![0]!.usd_value).toBeCloseTo(10 * (0.01 / 6));
    expect(results['tokens-saved']).toEqual([{ x: 'b', tokens_saved: 5000, injections: 2, ...ranked(1, 1, 1) }]);
    // p50: the 2nd of 4 calls is the 1st of the 3 in (500, 1000] → 500 + 500 × 1/3; p90: 500 + 500 × 2.6/3.
    const secrets = results['secrets-redacted'] as Array<Record<string, unknown>>;
    expect(secrets).toHaveLength(1);
    expect(secrets[0]).toMatchObject({ x: '2026-06-01', github_token: 2, private_span: 1, jwt: 1, aws_access_key_id: 0, caught_by_final_guard: 1 });
    // Installs active in the period: b (turns and searches) and c (opened an observation, never searched); a ran only legacy turns.
    expect(results['memory-searches']).toEqual([
      { x: 'b', searches: 4, via_mcp: 3, via_cli: 1, via_viewer: 0, empty_share: 0.25, observations_fetched: 2, observer_turns: 7, ...ranked(1, 2, 1) },
      { x: 'c', searches: 0, via_mcp: 0, via_cli: 0, via_viewer: 0, empty_share: null, observations_fetched: 1, observer_turns: 0, ...ranked(2, 2, 1) },
    ]);
    expect(results['hook-cost']).toEqual([
      { x: '2026-06-01', series: '0.1.0', mean_ms: 600, p50_ms: 500 + 500 / 3, p90_ms: 500 + (500 * 2.6) / 3, calls: 4, timeouts: 0 },
    ]);
  });

  it('gives the same rows through the plain compiled SQL', () => {
    expect(Object.fromEntries(queryTilesDirect(store.db).map((r) => [r.tile.id, r.rows]))).toEqual(results);
  });

  it.each(TILES.map((t) => [t.name, t] as const))('compiles "%s" to HogQL that dedupes by uuid and reads the same events and properties', (_, tile) => {
    const hogql = compileHogQL(tile).sql;
    expect(hogql).toMatch(/^WITH kept AS \(/);
    expect(hogql).toContain('FROM events WHERE event IN (');
    expect(hogql).toMatch(/GROUP BY uuid\) GROUP BY xk, series/);
    for (const event of tile.events) expect(hogql).toContain(`'${event}'`);
    for (const m of tile.measures) expect(hogql).toContain(` AS ${m.name}`);
    expect(hogql).not.toContain('json_extract');
  });
});
