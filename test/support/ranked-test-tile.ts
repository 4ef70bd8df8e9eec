import { num, sum, type Tile } from '../../src/fleet/dashboards/tile-ir.js';

/** A ranked tile over the test event `e`: each install's sum of `v`, highest first, one install kept at each end and the median. */
export const RANKED_TEST_TILE: Tile = {
  id: 'ranked-test',
  name: 'Ranked',
  description: 'A ranked tile that keeps one install at each end and the median.',
  healthy: 'n/a',
  chart: 'ranked',
  unit: 'count',
  events: ['e'],
  x: 'install',
  measures: [{ name: 'v', agg: sum(num('v')) }],
  order: { by: 'v', desc: true },
  keep: { ends: 1 },
};
