import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { openCollectorStore, startCollector } from '../src/telemetry/collector/index.js';
import { runTiles, simulateFleet } from '../src/telemetry/dashboards/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';

export const name = 'collector';

/** Collector ingest over real HTTP (gzip batches of 100), and all seven tiles over 1 M (and, with BENCH_LARGE=1, 10 M) events. */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-bench-');
  try {
    const collector = await startCollector({ dbFile: path.join(temp.dir, 'ingest.db'), port: 0 });
    const events = simulateFleet({ seed: 1, installs: 200 }).slice(0, 40_000);
    const bodies: Buffer[] = [];
    for (let i = 0; i < events.length; i += 100) {
      const batch = events.slice(i, i + 100).map((e) => ({ event: e.event, distinct_id: e.distinctId, uuid: e.uuid, timestamp: new Date(e.timestamp).toISOString(), properties: e.properties }));
      bodies.push(gzipSync(JSON.stringify({ api_key: 'bench', batch })));
    }
    const started = performance.now();
    for (const body of bodies) {
      const res = await fetch(`${collector.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body });
      if (!res.ok) throw new Error(`collector answered ${res.status}`);
    }
    const ingestSeconds = (performance.now() - started) / 1000;
    const stored = collector.store.count();
    await collector.close();

    const tiles = (millions: number) => {
      const store = openCollectorStore(path.join(temp.dir, `tiles-${millions}m.db`));
      const target = millions * 1_000_000;
      let seed = 100;
      while (store.count() < target) {
        const chunk = simulateFleet({ seed: seed++, installs: 400 });
        store.insert(chunk.slice(0, target - store.count()));
      }
      runTiles(store.db); // warm the page cache
      const t = performance.now();
      const results = runTiles(store.db);
      const total = performance.now() - t;
      store.close();
      return { events: target, all_tiles_ms: Math.round(total), per_tile_ms: Object.fromEntries(results.map((r) => [r.tile.id, Math.round(r.ms)])) };
    };
    return {
      ingest: { events: stored, batch_size: 100, gzip: true, events_per_s: Math.round(stored / ingestSeconds), target_events_per_s: 20_000 },
      tiles_1m: tiles(1),
      tiles_10m: process.env.BENCH_LARGE === '1' ? tiles(10) : 'skipped (set BENCH_LARGE=1)',
      target_all_tiles_1m_ms: 2_000,
    };
  } finally {
    temp.cleanup();
  }
}
