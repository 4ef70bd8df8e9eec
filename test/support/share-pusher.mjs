// One concurrent pusher for the shared-log tests and bench: its own process and connection, it
// pushes `count` records of a project through memtrace's pushBatch, one transaction each, holding
// each transaction open a random few milliseconds before COMMIT so pushers commit out of the
// order their rows were numbered in (the trap a pull cursor must survive). Prints the keys it
// pushed, one JSON array, when done. Run with `node --import tsx`.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { pushBatch } from '../../src/share/remote-log.ts';

const [url, project, countText, maxHoldText = '20'] = process.argv.slice(2);
const count = Number(countText);
const maxHold = Number(maxHoldText);
const client = new pg.Client({ connectionString: url });
await client.connect();
const query = client.query.bind(client);
// A slow network between the INSERT and its COMMIT.
client.query = async (sql, ...rest) => {
  if (sql === 'COMMIT') await new Promise((resolve) => setTimeout(resolve, Math.random() * maxHold));
  return query(sql, ...rest);
};
const machine = randomUUID();
const uids = [];
for (let i = 0; i < count; i += 1) {
  const uid = randomUUID();
  const body = JSON.stringify({ type: 'discovery', title: `record ${i} of ${machine}`, narrative: 'n' });
  await pushBatch(client, {
    project,
    machine,
    label: 'pusher',
    records: [{ uid, kind: 'observation', session: 's', createdAtMs: Date.now(), body }],
    withdrawals: [],
  });
  uids.push(uid);
}
await client.end();
process.stdout.write(`${JSON.stringify(uids)}\n`);
