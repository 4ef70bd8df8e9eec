import { openChdbConnection } from './src/fleet/collector/clickhouse/chdb-connection.js';
import { openClickHouseStore } from './src/fleet/collector/clickhouse/clickhouse-store.js';
import { generateFleet } from './src/fleet/dashboards/index.js';
import fs from 'node:fs';
fs.rmSync('/tmp/i30x/store3', { recursive: true, force: true });
const conn = await openChdbConnection('/tmp/i30x/store3');
await conn.command('CREATE DATABASE IF NOT EXISTS memtrace');
const store = await openClickHouseStore(conn, { database: 'memtrace', handoffMs: 0 });
const events = [...generateFleet({ seed: 1000, installs: 2000, nowMs: Date.UTC(2026, 10, 18, 12) })].slice(0, 200000);
for (const size of [1000, 10000, 50000]) {
  const t = performance.now(); let n = 0; const c = process.cpuUsage();
  for (let i = 0; i < 3; i++) { const b = events.slice(n, n + size); n += size; await store.insert(b); }
  const cu = process.cpuUsage(c);
  const ms = performance.now() - t; console.log(size, 'per insert ms', Math.round(ms / 3), 'events/s', Math.round(3 * size / ms * 1000), 'cpu us/event', ((cu.user + cu.system) / (3 * size)).toFixed(1));
  events.splice(0, n);
}
await store.close();
