import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { openCollectorStore, startCollector } from '../src/fleet/collector/index.js';
import { generateFleet, queryTilesDirect, simulateFleet, TILES, type TileResult } from '../src/fleet/dashboards/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { compareTileResults } from '../test/support/tile-compare.js';

export const name = 'collector';

const NOW_MS = Date.UTC(2026, 10, 18, 12);

/**
 * Collector ingest over real HTTP (gzip batches of 100, as posthog-node sends them), then every
 * tile over 1 M and 10 M stored events: read from the sums kept at ingest, and by the plain
 * compiled SQL over the raw events in the same run, cell by cell. Also the one-off cost of
 * building the sums for events stored before them (a new tile or a changed definition).
 * BENCH_COLLECTOR_SIZES=1 (millions, comma-separated) runs fewer sizes.
 */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-bench-');
  const sizes = (process.env.BENCH_COLLECTOR_SIZES ?? '1,10')
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  try {
    const out: Record<string, unknown> = { ingest: await ingest(path.join(temp.dir, 'ingest.db')), tiles: TILES.length };
    for (const millions of sizes) out[`tiles_${millions}m`] = tilesAt(path.join(temp.dir, `tiles-${millions}m.db`), millions * 1_000_000);
    out.targets = { ingest_events_per_s: 20_000, all_tiles_1m_ms: 2_000, all_tiles_10m_ms: 20_000 };
    return out;
  } finally {
    temp.cleanup();
  }
}

async function ingest(file: string): Promise<Record<string, unknown>> {
  const collector = await startCollector({ dbFile: file, port: 0 });
  try {
    const events = simulateFleet({ seed: 1, installs: 300, nowMs: NOW_MS }).slice(0, 60_000);
    const bodies: Buffer[] = [];
    for (let i = 0; i < events.length; i += 100) {
      const batch = events
        .slice(i, i + 100)
        .map((e) => ({ event: e.event, distinct_id: e.distinctId, uuid: e.uuid, timestamp: new Date(e.timestamp).toISOString(), properties: e.properties }));
      bodies.push(gzipSync(JSON.stringify({ api_key: 'bench', batch })));
    }
    const send = async () => {
      let stored = 0;
      for (const body of bodies) {
        const res = await fetch(`${collector.url}/batch/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body,
        });
        if (!res.ok) throw new Error(`collector answered ${res.status}`);
        stored += ((await res.json()) as { stored: number }).stored;
      }
      return stored;
    };
    const started = performance.now();
    const stored = await send();
    const seconds = (performance.now() - started) / 1000;
    const before = JSON.stringify(collector.store.tiles.read().map((r) => r.rows));
    // Exactly once: the same batches again store nothing and move no tile.
    const resentStored = await send();
    const unchanged = JSON.stringify(collector.store.tiles.read().map((r) => r.rows)) === before;
    return {
      events: stored,
      batch_size: 100,
      gzip: true,
      events_per_s: Math.round(stored / seconds),
      resent_stored: resentStored,
      tiles_unchanged_after_resend: unchanged,
    };
  } finally {
    await collector.close();
  }
}

function tilesAt(file: string, target: number): Record<string, unknown> {
  const store = openCollectorStore(file);
  try {
    let started = performance.now();
    let seed = 1_000;
    let batch: Parameters<typeof store.insert>[0] & unknown[] = [];
    fill: for (;;) {
      for (const e of generateFleet({ seed: seed++, installs: 2_000, nowMs: NOW_MS })) {
        batch.push(e);
        if (batch.length === 5_000) {
          store.insert(batch);
          batch = [];
          if (store.count() >= target) break fill;
        }
      }
    }
    const fillSeconds = (performance.now() - started) / 1000;
    const events = store.count();

    started = performance.now();
    const fast = store.tiles.read();
    const fastMs = performance.now() - started;

    started = performance.now();
    const plain = queryTilesDirect(store.db);
    const plainMs = performance.now() - started;
    const same = compareTileResults(fast, plain);

    // The one-off build for events stored before the sums existed.
    store.db.exec('DELETE FROM dashboard_tiles');
    const reopened = openCollectorStore(file);
    started = performance.now();
    reopened.tiles.refresh();
    const rebuildMs = performance.now() - started;
    const rebuiltSame = compareTileResults(reopened.tiles.read(), plain);
    reopened.close();

    return {
      events,
      fill_s_incl_simulation: +fillSeconds.toFixed(1),
      all_tiles_ms: +fastMs.toFixed(1),
      per_tile_ms: perTile(fast),
      plain_sql_all_tiles_ms: Math.round(plainMs),
      plain_per_tile_ms: perTile(plain),
      speedup_vs_plain: Math.round(plainMs / fastMs),
      identical_to_plain: same,
      rebuild_from_stored_events_ms: Math.round(rebuildMs),
      rebuild_identical_to_plain: rebuiltSame,
    };
  } finally {
    store.close();
  }
}

const perTile = (results: TileResult[]) => Object.fromEntries(results.map((r) => [r.tile.id, +r.ms.toFixed(1)]));
