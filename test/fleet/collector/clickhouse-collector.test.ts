import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCollectorStore, startCollector, type RunningCollector } from '../../../src/fleet/collector/index.js';
import { openChdbConnection } from '../../../src/fleet/collector/clickhouse/chdb-connection.js';
import type { ClickHouseConnection } from '../../../src/fleet/collector/clickhouse/clickhouse-connection.js';
import { openClickHouseStore } from '../../../src/fleet/collector/clickhouse/clickhouse-store.js';
import { simulateFleet } from '../../../src/fleet/dashboards/index.js';
import { makeTempDir } from '../../support/temp-dir.js';
import { compareTileResults } from '../../support/tile-compare.js';

const NOW = Date.UTC(2026, 7, 19, 12);
const BIN = path.resolve('bin/memtrace.cjs');

/** posthog-node sends the events as a worker would, in batches of 50. */
async function sendWithPostHogNode(url: string, events: ReturnType<typeof simulateFleet>): Promise<void> {
  const client = new PostHog('phc_local', { host: url, flushAt: 50, flushInterval: 0, fetchRetryCount: 0 });
  for (const e of events)
    client.capture({ distinctId: e.distinctId, event: e.event, properties: e.properties, uuid: e.uuid, timestamp: new Date(e.timestamp) });
  await client.flush();
  await client.shutdown();
}

describe('the collector on embedded ClickHouse (--store chdb:DIR)', () => {
  const temp = makeTempDir();
  let collector: RunningCollector;
  /** The store's engine, to make it fail for real (one chdb connection per process). */
  let engine: ClickHouseConnection;
  const fleet = simulateFleet({ seed: 21, installs: 12, nowMs: NOW }).slice(0, 1_500);

  beforeAll(async () => {
    engine = await openChdbConnection(path.join(temp.dir, 'store'));
    await engine.command('CREATE DATABASE IF NOT EXISTS memtrace');
    const store = await openClickHouseStore(engine, { database: 'memtrace', handoffMs: 0 });
    collector = await startCollector({ opened: { store, sqlite: null, batched: true }, spoolDir: path.join(temp.dir, 'spool'), port: 0 });
  }, 120_000);
  afterAll(async () => {
    await collector?.close();
    temp.cleanup();
  });

  it('takes posthog-node batches through its spool and serves the tiles SQLite computes from the same events', async () => {
    await sendWithPostHogNode(collector.url, fleet);
    await collector.flush();
    expect(await collector.store.count()).toBe(fleet.length);
    const sqlite = openCollectorStore(':memory:');
    sqlite.insert(fleet);
    const comparison = compareTileResults(await collector.store.readTiles(), sqlite.tiles.read());
    sqlite.close();
    expect(comparison.shape_mismatches).toEqual([]);
    expect(comparison.count_mismatches).toBe(0);
    expect(comparison.max_relative_difference).toBeLessThanOrEqual(1e-9);
    const health = (await (await fetch(`${collector.url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', events: fleet.length, spooled: 0, failing: null });
  });

  it('stores a re-sent batch once: the client retried, the tiles do not move', async () => {
    const before = JSON.stringify((await collector.store.readTiles()).map((r) => r.rows));
    await sendWithPostHogNode(collector.url, fleet.slice(0, 400));
    await collector.flush();
    expect(await collector.store.count()).toBe(fleet.length);
    expect(JSON.stringify((await collector.store.readTiles()).map((r) => r.rows))).toBe(before);
  });

  it('keeps events in its spool while the store refuses them, and stores them once when it answers again', async () => {
    const [inbox] = await engine.rows<{ name: string }>(
      "SELECT name FROM system.tables WHERE database = 'memtrace' AND startsWith(name, 'inbox_') AND engine = 'Null'",
    );
    await engine.command(`RENAME TABLE memtrace.${inbox!.name} TO memtrace.inbox_away`);
    const more = simulateFleet({ seed: 22, installs: 3, nowMs: NOW }).slice(0, 200);
    await sendWithPostHogNode(collector.url, more);
    await collector.flush();
    const health = (await (await fetch(`${collector.url}/health`)).json()) as { spooled: number; failing: string | null };
    expect(health.spooled).toBe(more.length);
    expect(health.failing).toMatch(/inbox/);
    expect(await collector.store.count()).toBe(fleet.length);
    await engine.command(`RENAME TABLE memtrace.inbox_away TO memtrace.${inbox!.name}`);
    await collector.flush();
    await waitFor(async () => (await collector.store.count()) === fleet.length + more.length);
    expect(((await (await fetch(`${collector.url}/health`)).json()) as { spooled: number }).spooled).toBe(0);
  });

  it('names the one step to take when the chdb package is not installed (it is a development dependency)', async () => {
    const missing = Object.assign(new Error("Cannot find package 'chdb'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(openChdbConnection(path.join(temp.dir, 'elsewhere'), { load: () => Promise.reject(missing) })).rejects.toMatchObject({
      kind: 'not_installed',
      message: expect.stringMatching(/^the chdb store needs the chdb package \(about 550 MB, not installed with memtrace\): run 'npm install chdb@3\.4\.0'/),
    });
  });

  it('is refused in one line by a second process on the same directory', () => {
    const run = spawnSync(process.execPath, [BIN, 'dashboards', 'report', '--store', `chdb:${path.join(temp.dir, 'store')}`], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^memtrace dashboards report: the chdb store at .* is open in another process/)]);
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('condition not met');
}
