import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { openHttpConnection } from '../../../src/fleet/collector/clickhouse/http-connection.js';
import { captureIO } from '../../support/cli-io.js';
import { CLICKHOUSE_SERVER_BINARY, PASSWORD, startClickHouseServer, type ClickHouseServer } from '../../support/clickhouse-server.js';
import { makeTempDir } from '../../support/temp-dir.js';

/**
 * What only a ClickHouse server does, on a real one: the distribution's clickhouse-server where
 * the machine has it (skipped elsewhere; the CI image has none, this machine has Debian's 18.16).
 */
describe.skipIf(CLICKHOUSE_SERVER_BINARY === null)('a clickhouse: store on a real ClickHouse server', () => {
  let server: ClickHouseServer;
  const temp = makeTempDir();
  beforeAll(async () => {
    server = await startClickHouseServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    temp.cleanup();
  });

  const start = async (url: string) => {
    const cli = captureIO({ env: { MEMTRACE_DATA_DIR: temp.dir } });
    const code = await main(['collector', '--store', `clickhouse:${url}`, '--exit'], cli.io);
    return { code, lines: cli.stderr().trim().split('\n'), stderr: cli.stderr() };
  };

  it('says in one line, exit 1, that the server refused the credentials, and never shows the password', async () => {
    const run = await start(server.url({ password: 'not-the-password' }));
    expect(run.code).toBe(1);
    expect(run.lines).toEqual([
      expect.stringMatching(
        /^memtrace collector: could not start: ClickHouse at http:\/\/memtrace:\*\*\*@127\.0\.0\.1:\d+\/default refused the credentials: Code: 193/,
      ),
    ]);
    expect(run.stderr).not.toContain('not-the-password');
  });

  it('says in one line, exit 1, that the database does not exist', async () => {
    const run = await start(server.url({ database: 'no_such_database' }));
    expect(run.code).toBe(1);
    expect(run.lines).toEqual([expect.stringMatching(/has no such database: Code: 81/)]);
  });

  it('says in one line, exit 1, that a server too old for the store is too old', async () => {
    const run = await start(server.url());
    expect(run.code).toBe(1);
    expect(run.lines).toEqual([expect.stringMatching(/runs ClickHouse \d+\.\d+[\d.]*; the collector store needs 23\.3 or newer$/)]);
    expect(run.stderr).not.toContain(PASSWORD);
  });

  it('runs exclusive statements one at a time, a second waiting for the first (the session lock)', async () => {
    const [a, b] = [await openHttpConnection({ url: server.url() }), await openHttpConnection({ url: server.url() })];
    await a.command('CREATE TABLE IF NOT EXISTS default.turns (n UInt64) ENGINE = Memory');
    // The first statement holds the session for a second; the second is sent while it runs.
    const slow = a.command('INSERT INTO default.turns SELECT 1 FROM numbers(1) WHERE sleepEachRow(1) = 0', { exclusive: true });
    for (;;) {
      const [running] = await b.rows<{ n: number }>(
        "SELECT count() AS n FROM system.processes WHERE query LIKE '%sleepEachRow%' AND query NOT LIKE '%system.processes%'",
      );
      if (Number(running!.n) > 0) break;
    }
    // Had it not waited, it would have seen no row and written 10.
    await b.command('INSERT INTO default.turns SELECT count() + 10 FROM default.turns', { exclusive: true });
    await slow;
    const rows = await b.rows<{ n: number }>('SELECT n FROM default.turns ORDER BY n');
    expect(rows.map((r) => Number(r.n))).toEqual([1, 11]);
    await a.close();
    await b.close();
  });
});
