import path from 'node:path';
import { createChdbConnection } from 'chdb/connection';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { openCollectorStore } from '../../../src/fleet/collector/index.js';
import { openClickHouseStore } from '../../../src/fleet/collector/clickhouse/clickhouse-store.js';
import { openHttpConnection, type HttpConnectionOptions } from '../../../src/fleet/collector/clickhouse/http-connection.js';
import { simulateFleet } from '../../../src/fleet/dashboards/index.js';
import { captureIO } from '../../support/cli-io.js';
import { makeTempDir } from '../../support/temp-dir.js';
import { compareTileResults } from '../../support/tile-compare.js';

const NOW = Date.UTC(2026, 7, 19, 12);

/**
 * The clickhouse: store's own code — the official client's query, command and insert calls, the
 * exclusive statements, the schema lock — run against ClickHouse itself, with chdb standing in
 * for the HTTP transport through the client's `connection` option. What only a server does over
 * HTTP (sessions, credentials, databases) is in clickhouse-server.test.ts.
 */
describe('the clickhouse: store through @clickhouse/client (engine: chdb)', () => {
  const temp = makeTempDir();
  // chdb's Connection is built against @clickhouse/client-common's types; the client bundles its own copy of the same shapes.
  const engine = createChdbConnection({ path: path.join(temp.dir, 'engine') }) as unknown as HttpConnectionOptions['connection'] & { close(): Promise<void> };
  afterAll(async () => {
    await engine.close();
    temp.cleanup();
  });

  it('serves the same numbers from two collectors on one server, each uuid stored once when both receive it', async () => {
    const first = await openHttpConnection({ url: 'http://default@127.0.0.1:8123/shared', connection: engine });
    await first.command('CREATE DATABASE IF NOT EXISTS shared');
    const second = await openHttpConnection({ url: 'http://default@127.0.0.1:8123/shared', connection: engine });
    // Two collectors start at once: one builds the tiles, the other waits for it.
    const [a, b] = await Promise.all([
      openClickHouseStore(first, { database: 'shared', handoffMs: 200 }),
      openClickHouseStore(second, { database: 'shared', handoffMs: 200 }),
    ]);
    const events = simulateFleet({ seed: 23, installs: 10, nowMs: NOW }).slice(0, 2_000);
    // A client times out on one collector and retries on the other: every batch reaches both.
    const batches = [events.slice(0, 800), events.slice(600, 1_400), events.slice(1_200)];
    await Promise.all(batches.flatMap((batch) => [a.insert(batch), b.insert(batch)]));
    expect(await a.count()).toBe(events.length);
    expect(await b.count()).toBe(events.length);
    const [fromA, fromB] = [await a.readTiles(), await b.readTiles()];
    // The same states, merged in whatever order ClickHouse's threads take them: equal to the last few bits.
    const between = compareTileResults(fromA, fromB);
    expect(between.shape_mismatches).toEqual([]);
    expect(between.count_mismatches).toBe(0);
    expect(between.max_relative_difference).toBeLessThanOrEqual(1e-9);
    const sqlite = openCollectorStore(':memory:');
    sqlite.insert(events);
    const comparison = compareTileResults(fromA, sqlite.tiles.read());
    sqlite.close();
    expect(comparison.count_mismatches).toBe(0);
    expect(comparison.max_relative_difference).toBeLessThanOrEqual(1e-9);
    await a.close();
    await b.close();
  });

  it('says in one line, exit 1, that a clickhouse: URL does not answer', async () => {
    const cli = captureIO({ env: { MEMTRACE_DATA_DIR: temp.dir } });
    const code = await main(['collector', '--store', 'clickhouse:http://memtrace:secret@127.0.0.1:9/memtrace', '--exit'], cli.io);
    expect(code).toBe(1);
    expect(cli.stderr().trim().split('\n')).toEqual([
      expect.stringMatching(
        /^memtrace collector: could not start: ClickHouse at http:\/\/memtrace:\*\*\*@127\.0\.0\.1:9\/memtrace does not answer \(ECONNREFUSED\)$/,
      ),
    ]);
    expect(cli.stderr()).not.toContain('secret');
  });
});
