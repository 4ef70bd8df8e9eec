import { afterAll, beforeAll } from 'vitest';
import { openChdbConnection } from '../../src/fleet/collector/clickhouse/chdb-connection.js';
import type { ClickHouseConnection } from '../../src/fleet/collector/clickhouse/clickhouse-connection.js';
import { makeTempDir } from './temp-dir.js';

/** A chdb directory with a `memtrace` database for the enclosing describe, closed and removed after it. */
export function chdbForSuite(): { connection(): ClickHouseConnection } {
  const temp = makeTempDir();
  let connection: ClickHouseConnection | undefined;
  beforeAll(async () => {
    connection = await openChdbConnection(temp.dir);
    await connection.command('CREATE DATABASE IF NOT EXISTS memtrace');
  }, 120_000);
  afterAll(async () => {
    await connection?.close();
    temp.cleanup();
  });
  return {
    connection: () => {
      if (connection === undefined) throw new Error('the chdb connection is opened before the suite runs');
      return connection;
    },
  };
}
