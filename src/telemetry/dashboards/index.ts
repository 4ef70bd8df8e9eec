export { TILES, ROLLUP, LEGACY, CONTEXT_ROLLUP, LEGACY_CONTEXT } from './tiles.js';
export { compileHogQL, compileSQLite, type CompiledTile } from './compile.js';
export { runTiles, type TileResult, type TileRow } from './run-tiles.js';
export { renderChart, renderDashboardPage } from './svg-chart.js';
export { simulateFleet, POISONED_SHARE_BY_MODEL, LEGACY_VERSIONS, MEMTRACE_VERSIONS, type FleetOptions } from './simulator.js';
export { exportDashboard, insightFor, DASHBOARD_NAME, DASHBOARD_TAG } from './posthog-export.js';
export { pushDashboards, type PushConfig, type PushResult } from './posthog-push.js';
export type { Tile } from './tile-ir.js';
