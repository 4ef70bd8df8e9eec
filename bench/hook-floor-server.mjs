// The floor of a Node worker on the hook's path, for `npm run bench -- hook-cpu` (workers `floor`
// and `floor_sqlite`): DATA_DIR/worker.sock served by node:net, each hook's request read to the
// end of its body (the forwarder sends it chunked: to the last, empty chunk) and answered 202,
// the connection closed, as the worker's own reader does; with
// `--sqlite`, the body is first committed as one row of a WAL database (synchronous = NORMAL, as
// the store): the least a durable reply costs. Nothing else: no parse, no redaction, no telemetry.
// `--intake` and `--prelog` run memtrace's own steps on the body first (hook-floor-intake.mjs).
// A chunked body is taken out of its framing before any of them gets it.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { createFloorIntake } from './hook-floor-intake.mjs';

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
} else if (mode === '--intake' || mode === '--prelog') commit = await createFloorIntake(dataDir, mode);
const REPLY = 'HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';

fs.rmSync(socketPath, { force: true });
const server = net.createServer((socket) => {
  const chunks = [];
  socket.on('data', (chunk) => {
    chunks.push(chunk);
    const request = chunks.length === 1 ? chunk : Buffer.concat(chunks);
    const bodyAt = request.indexOf('\r\n\r\n');
    if (bodyAt < 0) return;
    const head = request.toString('latin1', 0, bodyAt);
    const length = /content-length:\s*(\d+)/i.exec(head)?.[1];
    const whole = length !== undefined ? request.length >= bodyAt + 4 + Number(length) : request.subarray(-5).toString('latin1') === '0\r\n\r\n';
    if (!whole) return;
    commit(length !== undefined ? request.toString('utf8', bodyAt + 4) : dechunked(request.subarray(bodyAt + 4)));
    socket.end(REPLY);
  });
  socket.on('error', () => socket.destroy());
});
/** A chunked body's bytes without its framing (the floors that parse it need the JSON itself). */
function dechunked(framed) {
  const parts = [];
  let at = 0;
  for (;;) {
    const lineEnd = framed.indexOf('\r\n', at);
    const size = Number.parseInt(framed.toString('latin1', at, lineEnd), 16);
    if (!(size > 0)) return Buffer.concat(parts).toString('utf8');
    parts.push(framed.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

server.listen(socketPath, () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
