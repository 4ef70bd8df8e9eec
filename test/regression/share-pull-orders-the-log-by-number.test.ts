import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pullBatch, pushBatch, type Cursor } from '../../src/share/remote-log.js';
import { ensureRemoteSchema } from '../../src/share/remote-schema.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';

// The pull once sorted by its own text output columns (ORDER BY a name that is also an output
// column's sorts the output): '1000' came before '999', so a page ending at 1001 skipped 998 and
// 999, and a later page read rows again. Found by the concurrent-pusher test when transaction ids
// crossed 1000; here the row numbers cross it on purpose.
let server: PostgresServer;
let client: pg.Client;

beforeAll(async () => {
  server = await startPostgresServer();
  await server.createDatabase('team');
  await server.createRole('alice', 'alice-pw', { createOn: 'team' });
  client = new pg.Client({ connectionString: server.url('alice', { password: 'alice-pw' }) });
  await client.connect();
  await ensureRemoteSchema(client);
}, 60_000);

afterAll(async () => {
  await client?.end();
  await server?.destroy();
});

it('pages through the log in number order across a change of digit count', async () => {
  await client.query('ALTER TABLE memtrace.records ALTER COLUMN seq RESTART WITH 998');
  const uids = Array.from({ length: 4 }, () => randomUUID());
  const records = uids.map((uid) => ({
    uid,
    kind: 'observation' as const,
    session: 's',
    createdAtMs: 0,
    body: '{"type":"other","title":"t","narrative":"n"}',
  }));
  await pushBatch(client, { project: 'p', machine: randomUUID(), label: 'a', records, withdrawals: [] });
  const seen: Array<{ uid: string; seq: number }> = [];
  let cursor: Cursor = { xid: '0', seq: 0 };
  for (;;) {
    const rows = await pullBatch(client, 'p', cursor, 2);
    if (rows.length === 0) break;
    seen.push(...rows.map((r) => ({ uid: r.uid, seq: r.seq })));
    cursor = { xid: rows.at(-1)!.xid, seq: rows.at(-1)!.seq };
  }
  expect(seen).toEqual(uids.map((uid, i) => ({ uid, seq: 998 + i })));
});
