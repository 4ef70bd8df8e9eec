import { compileHogQL } from './compile.js';
import type { Tile } from './tile-ir.js';
import { TILES } from './tiles.js';

export const DASHBOARD_NAME = 'memtrace fleet';
export const DASHBOARD_TAG = 'memtrace';

export interface InsightSpec {
  name: string;
  description: string;
  tags: string[];
  query: { kind: 'DataVisualizationNode'; source: { kind: 'HogQLQuery'; query: string } };
}

/** One PostHog insight per tile: a HogQL query visualised as a table or chart. */
export function insightFor(tile: Tile): InsightSpec {
  return {
    name: tile.name,
    description: tile.caption,
    tags: [DASHBOARD_TAG],
    query: { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: compileHogQL(tile).sql } },
  };
}

export function exportDashboard(tiles: readonly Tile[] = TILES) {
  return {
    dashboard: { name: DASHBOARD_NAME, description: 'Fleet health of memtrace observers, built from anonymous rollups (and legacy per-turn events).', tags: [DASHBOARD_TAG] },
    insights: tiles.map(insightFor),
  };
}
