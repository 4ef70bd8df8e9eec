// The floor of a Node worker on the hook's path, for `npm run bench -- hook-cpu` (workers `floor`
// and `floor_sqlite`): DATA_DIR/worker.sock served by node:net, each hook's request read to the
// end of its body and answered 202, the connection closed, as the worker's own reader does; with
// `--sqlite`, the body is first committed as one row of a WAL database (synchronous = NORMAL, as
// the store): the least a durable reply costs. Nothing else: no parse, no redaction, no telemetry.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';

const [dataDir, mode] = process.argv.slice(2);
const socketPath = path.join(dataDir, 'worker.sock');
let commit = () => {};
if (mode === '--sqlite') {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(path.join(dataDir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO events (body) VALUES (?)');
  const once = db.transaction((body) => insert.run(body));
  commit = (body) => once.immediate(body);
}
const REPLY = 'HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';

fs.rmSync(socketPath, { force: true });
const server = net.createServer((socket) => {
  const chunks = [];
  let length = 0;
  let want = -1;
  socket.on('data', (chunk) => {
    chunks.push(chunk);
    length += chunk.length;
    if (want < 0) {
      const head = Buffer.concat(chunks).toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      want = end + 4 + Number(/content-length:\s*(\d+)/i.exec(head.slice(0, end))?.[1] ?? 0);
    }
    if (length < want) return;
    const request = Buffer.concat(chunks);
    commit(request.toString('utf8', request.indexOf('\r\n\r\n') + 4));
    socket.end(REPLY);
  });
  socket.on('error', () => socket.destroy());
});
server.listen(socketPath, () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
