import { describe, expect, it } from 'vitest';
import { openCollectorStore, type CollectedEvent } from '../../../src/fleet/collector/index.js';
import { compileHogQL, planTile, queryTilesDirect, simulateFleet, TILES, type Tile } from '../../../src/fleet/dashboards/index.js';

const tile = TILES.find((t) => t.id === 'hosts')!;
const t0 = Date.UTC(2026, 5, 1, 12); // a Monday
let n = 0;
const event = (name: string, distinctId: string, properties: Record<string, unknown>): CollectedEvent => ({
  uuid: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  event: name,
  distinctId,
  timestamp: t0 + n,
  properties: { app_version: '0.3.0', ...properties },
});

type Row = { x: string; series: string; active_installs: number; observer_turns: number; sessions: number };

describe('the "Active installs and observer turns by host" tile', () => {
  const fixture = [
    // Install a, on a release whose rollups do not name the platform: Claude Code.
    event('observer_turn_rollup', 'a', { count: 5 }),
    event('hook_rollup', 'a', { hook_event: 'post_tool_use', count: 9 }),
    // Install b on Codex: two sessions, one install.
    event('observer_turn_rollup', 'b', { count: 3, platform: 'codex' }),
    event('observer_turn_rollup', 'b', { count: 2, platform: 'codex' }),
    event('hook_rollup', 'b', { hook_event: 'post_tool_use', count: 4, platform: 'codex' }),
    // Install c: hooks on Gemini CLI and on Claude Code, no observer turns yet.
    event('hook_rollup', 'c', { hook_event: 'session_start', count: 1, platform: 'gemini-cli' }),
    event('hook_rollup', 'c', { hook_event: 'session_start', count: 1, platform: 'claude-code' }),
  ];
  const store = openCollectorStore(':memory:');
  store.insert(fixture);
  store.insert([fixture[2]!]); // a uuid sent twice counts once
  const rows = store.tiles.read().find((r) => r.tile.id === 'hosts')!.rows as Row[];

  it('counts each install once per host and week, and the observer turns and sessions of each host', () => {
    expect(rows).toEqual([
      { x: '2026-06-01', series: 'claude-code', active_installs: 2, observer_turns: 5, sessions: 1 },
      { x: '2026-06-01', series: 'codex', active_installs: 1, observer_turns: 5, sessions: 2 },
      { x: '2026-06-01', series: 'gemini-cli', active_installs: 1, observer_turns: 0, sessions: 0 },
    ]);
  });

  it('gives the same rows through the plain compiled SQL', () => {
    expect(queryTilesDirect(store.db, [tile])[0]!.rows).toEqual(rows);
  });

  it('compiles the installs count to a distinct count of distinct_id in HogQL', () => {
    const hogql = compileHogQL(tile).sql;
    expect(hogql).toContain('any(distinct_id) AS i');
    expect(hogql).toMatch(/count\(DISTINCT if\(v\d+ != 0, i, NULL\)\) AS f\d+/);
  });

  it('refuses an installs count under a series total, which would count an install twice', () => {
    const broken: Tile = { ...tile, id: 'broken', series: { by: tile.series!.by, total: 'all hosts' } };
    expect(() => planTile(broken)).toThrow(/installs count is not a sum/);
  });

  it('is filled by the simulator: every host has installs, and the hosts’ turns add up to the week’s', () => {
    const fleet = simulateFleet({ seed: 3, installs: 120, nowMs: Date.UTC(2026, 7, 19, 12) });
    const sim = openCollectorStore(':memory:');
    sim.insert(fleet);
    const byHost = sim.tiles.read().find((r) => r.tile.id === 'hosts')!.rows as Row[];
    expect(new Set(byHost.map((r) => r.series))).toEqual(new Set(['claude-code', 'gemini-cli', 'codex']));
    const weeks = new Set(byHost.map((r) => r.x));
    for (const week of weeks) {
      const turns = fleet
        .filter(
          (e) => e.event === 'observer_turn_rollup' && new Date(e.timestamp - ((e.timestamp - 345_600_000) % 604_800_000)).toISOString().slice(0, 10) === week,
        )
        .reduce((sum, e) => sum + (e.properties.count as number), 0);
      expect(byHost.filter((r) => r.x === week).reduce((sum, r) => sum + r.observer_turns, 0)).toBe(turns);
    }
    const lastWeek = [...weeks].sort().at(-1)!;
    for (const host of ['gemini-cli', 'codex']) expect(byHost.find((r) => r.x === lastWeek && r.series === host)!.active_installs).toBeGreaterThan(0);
  });
});
