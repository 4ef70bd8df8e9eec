import { openHttpConnection } from './src/fleet/collector/clickhouse/http-connection.js';
for (const url of ['http://memtrace:secret@127.0.0.1:18123/default', 'http://memtrace:wrong@127.0.0.1:18123/default', 'http://memtrace:secret@127.0.0.1:18123/nope', 'http://memtrace:secret@127.0.0.1:18124/default']) {
  const c = await openHttpConnection({ url, requestTimeoutMs: 3000 });
  try { console.log(url, JSON.stringify(await c.rows('SELECT 1 AS ok'))); } catch (e) { console.log(url, (e as any).kind, (e as Error).message); }
  try { await c.command('CREATE TABLE IF NOT EXISTS default.t (x UInt8) ENGINE = Memory'); await c.insertRows('default.t', '{"x":1}\n{"x":2}', { exclusive: true }); console.log(JSON.stringify(await c.rows('SELECT count() AS n FROM default.t'))); } catch (e) { console.log('  ', (e as any).kind, (e as Error).message.slice(0, 200)); }
  await c.close();
}
