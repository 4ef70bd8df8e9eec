import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { openFleetStore, startCollector, type CollectedEvent, type FleetStore, type StoreSpec } from '../src/fleet/collector/index.js';
import { generateFleet, simulateFleet, TILES, type TileResult } from '../src/fleet/dashboards/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { compareTileResults } from '../test/support/tile-compare.js';

export const name = 'collector';

const NOW_MS = Date.UTC(2026, 10, 18, 12);
const FILL_BATCH = 50_000;

/**
 * Collector ingest and tile reads on SQLite and on embedded ClickHouse (chdb), same run:
 * - ingest over real HTTP (gzip batches of 100, as posthog-node sends them) into a collector on
 *   each store (for chdb: through the spool, timed until the store holds every event);
 * - at each size, the same events into both stores in batches of 50 k (events/s of that fill),
 *   then every tile read from what each store keeps at ingest, against each store's plain query
 *   over the raw events (timed per tile too) and against the other engine, cell by cell; then the
 *   time of an insert of one new event, which brings every tile up to date (on chdb: every tile's
 *   rows computed anew).
 * BENCH_COLLECTOR_SIZES (millions, comma-separated; default 1,10; 0.1 for a quick run),
 * BENCH_COLLECTOR_ENGINES (default sqlite,chdb), BENCH_COLLECTOR_INGEST_EVENTS (default 60000),
 * BENCH_COLLECTOR_PLAIN=0 skips the plain queries (minutes at 10 M),
 * BENCH_COLLECTOR_KEEP=DIR keeps the filled stores in DIR (tiles-<events>-<engine>, and a
 * `.filled` file once the fill is done) and reuses a filled store there (filling 10 M events
 * takes a long while; a reused store reports no fill figure, and each run's one-event inserts are
 * new events).
 */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-bench-');
  const sizes = (process.env.BENCH_COLLECTOR_SIZES ?? '1,10')
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  const engines = (process.env.BENCH_COLLECTOR_ENGINES ?? 'sqlite,chdb').split(',').filter((e) => e === 'sqlite' || e === 'chdb');
  const ingestEvents = Number(process.env.BENCH_COLLECTOR_INGEST_EVENTS ?? 60_000);
  const plain = process.env.BENCH_COLLECTOR_PLAIN !== '0';
  const keep = process.env.BENCH_COLLECTOR_KEEP;
  if (keep) fs.mkdirSync(keep, { recursive: true });
  try {
    const out: Record<string, unknown> = { tiles: TILES.length, engines };
    for (const engine of engines) out[`ingest_http_${engine}`] = await ingest(engine, temp.dir, ingestEvents);
    for (const millions of sizes) out[`tiles_${millions}m`] = await tilesAt(keep ?? temp.dir, Math.round(millions * 1_000_000), engines, plain);
    out.targets = { clickhouse_ingest_events_per_s: 50_000, all_tiles_10m_ms: 50 };
    return out;
  } finally {
    temp.cleanup();
  }
}

function spec(engine: string, dir: string, label: string): StoreSpec {
  return engine === 'chdb' ? { kind: 'chdb', dir: path.join(dir, `${label}.chdb`) } : { kind: 'sqlite', path: path.join(dir, `${label}.db`) };
}

async function ingest(engine: string, dir: string, count: number): Promise<Record<string, unknown>> {
  const collector = await startCollector({ store: spec(engine, dir, `ingest-${engine}`), spoolDir: path.join(dir, `spool-${engine}`), port: 0 });
  try {
    const events = simulateFleet({ seed: 1, installs: 300, nowMs: NOW_MS }).slice(0, count);
    const bodies: Buffer[] = [];
    for (let i = 0; i < events.length; i += 100) {
      const batch = events
        .slice(i, i + 100)
        .map((e) => ({ event: e.event, distinct_id: e.distinctId, uuid: e.uuid, timestamp: new Date(e.timestamp).toISOString(), properties: e.properties }));
      bodies.push(gzipSync(JSON.stringify({ api_key: 'bench', batch })));
    }
    const send = async () => {
      for (const body of bodies) {
        const res = await fetch(`${collector.url}/batch/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body,
        });
        if (!res.ok) throw new Error(`collector answered ${res.status}`);
        await res.arrayBuffer();
      }
      await collector.flush();
    };
    const started = performance.now();
    await send();
    const seconds = (performance.now() - started) / 1000;
    const stored = await collector.store.count();
    const before = JSON.stringify((await collector.store.readTiles()).map((r) => r.rows));
    // Exactly once: the same batches again store nothing and move no tile.
    await send();
    const resentStored = (await collector.store.count()) - stored;
    const unchanged = JSON.stringify((await collector.store.readTiles()).map((r) => r.rows)) === before;
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

async function tilesAt(dir: string, target: number, engines: readonly string[], plain: boolean): Promise<Record<string, unknown>> {
  const stores = new Map<string, FleetStore>();
  const filling = new Map<string, FleetStore>();
  const fillMs = new Map<string, number>();
  try {
    // The simulator repeats a few uuids across seeds, so a filled store holds a little less than `target`: a marker says it is whole.
    const filled = (engine: string) => path.join(dir, `tiles-${target}-${engine}.filled`);
    for (const engine of engines) {
      const opened = await openFleetStore(spec(engine, dir, `tiles-${target}-${engine}`));
      stores.set(engine, opened.store);
      const held = await opened.store.count();
      if (held === 0) filling.set(engine, opened.store);
      else if (!fs.existsSync(filled(engine))) throw new Error(`${engine} store in ${dir} holds ${held} events but its fill never finished: remove it`);
      fillMs.set(engine, 0);
    }
    let events = filling.size === 0 ? target : 0;
    let generateMs = 0;
    let seed = 1_000;
    let batch: CollectedEvent[] = [];
    const flushBatch = async () => {
      for (const [engine, store] of filling) {
        const started = performance.now();
        await store.insert(batch);
        fillMs.set(engine, fillMs.get(engine)! + performance.now() - started);
      }
      events += batch.length;
      batch = [];
    };
    let started = performance.now();
    fill: while (events < target) {
      for (const e of generateFleet({ seed: seed++, installs: 2_000, nowMs: NOW_MS })) {
        batch.push(e);
        if (batch.length === Math.min(FILL_BATCH, target - events)) {
          generateMs += performance.now() - started;
          await flushBatch();
          started = performance.now();
          if (events >= target) break fill;
        }
      }
    }
    for (const engine of filling.keys()) fs.writeFileSync(filled(engine), `${events}\n`);
    const out: Record<string, unknown> = { events, generate_s: +(generateMs / 1000).toFixed(1), reused: engines.filter((e) => !filling.has(e)) };
    const kept = new Map<string, TileResult[]>();
    for (const [engine, store] of stores) {
      const reads: number[] = [];
      const readsCpu: number[] = [];
      let results: TileResult[] = [];
      for (let i = 0; i < 5; i += 1) {
        const cpu = process.cpuUsage();
        const t = performance.now();
        results = await store.readTiles();
        reads.push(performance.now() - t);
        readsCpu.push(cpuMs(process.cpuUsage(cpu)));
      }
      kept.set(engine, results);
      const figures: Record<string, unknown> = {
        fill_events_per_s: filling.has(engine) ? Math.round(events / (fillMs.get(engine)! / 1000)) : null,
        fill_batch: FILL_BATCH,
        all_tiles_ms_first: +reads[0]!.toFixed(1),
        all_tiles_ms_median_warm: median(reads.slice(1)),
        // This process's CPU for the same reads: what a machine shared with other work does not inflate.
        all_tiles_cpu_ms_median_warm: median(readsCpu.slice(1)),
        per_tile_ms: Object.fromEntries(results.map((r) => [r.tile.id, +r.ms.toFixed(1)])),
      };
      if (plain) {
        const t = performance.now();
        const direct = await store.queryTilesPlain();
        figures.plain_all_tiles_ms = Math.round(performance.now() - t);
        // Each tile's full scan beside its kept read above (per_tile_ms), same run.
        figures.plain_per_tile_ms = Object.fromEntries(direct.map((r) => [r.tile.id, Math.round(r.ms)]));
        figures.kept_vs_plain = summary(compareTileResults(results, direct));
      }
      // An insert of one new event: the cost of bringing every tile up to date after an insert
      // (for chdb, computing every tile's kept rows from the states: what a read costs without them).
      const insertOne: number[] = [];
      const insertOneCpu: number[] = [];
      // Seeds past what the store holds, so a reused store is given new events too (a seed's one install may send none).
      let oneSeed = 900_000 + (await store.count());
      for (let i = 0; i < 3; i += 1) {
        let event: CollectedEvent | undefined;
        while (event === undefined) event = generateFleet({ seed: oneSeed++, installs: 1, nowMs: NOW_MS }).next().value ?? undefined;
        const cpu = process.cpuUsage();
        const t = performance.now();
        await store.insert([event]);
        insertOne.push(performance.now() - t);
        insertOneCpu.push(cpuMs(process.cpuUsage(cpu)));
      }
      figures.insert_one_event_ms_median = median(insertOne);
      figures.insert_one_event_cpu_ms_median = median(insertOneCpu);
      out[engine] = figures;
    }
    if (kept.has('sqlite') && kept.has('chdb')) out.chdb_vs_sqlite = summary(compareTileResults(kept.get('chdb')!, kept.get('sqlite')!));
    return out;
  } finally {
    for (const store of stores.values()) await store.close();
  }
}

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return +sorted[Math.floor(sorted.length / 2)]!.toFixed(1);
}

function summary(c: ReturnType<typeof compareTileResults>): Record<string, unknown> {
  return {
    cells: c.cells,
    identical: c.identical,
    count_mismatches: c.count_mismatches,
    max_relative_difference: c.max_relative_difference,
    shape_mismatches: c.shape_mismatches,
  };
}
