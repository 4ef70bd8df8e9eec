/**
 * The hook-cpu bench's client for its in-process figure, run as its own process so that its CPU
 * is not the worker's: for each batch of payloads it gets (IPC), it sends them one after the
 * other over the worker's socket exactly as the native forwarder does (chunked, Connection:
 * close, the via and uptime headers), reads each answer to the end, then says how many were
 * answered with a 2xx.
 */
import fs from 'node:fs';
import net from 'node:net';

interface Batch {
  socketPath: string;
  bodies: string[];
}

function uptime(): string {
  return fs.readFileSync('/proc/uptime', 'latin1').split(' ')[0] ?? '';
}

function post(socketPath: string, body: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body);
    const head =
      'POST /hook/claude-code/post-tool-use HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n' +
      `Transfer-Encoding: chunked\r\nx-memtrace-hook-via: settings\r\nx-memtrace-hook-uptime: ${uptime()}\r\n\r\n${bytes.length.toString(16)}\r\n`;
    const chunks: Buffer[] = [];
    const socket = net.connect({ path: socketPath }, () => socket.end(Buffer.concat([Buffer.from(head, 'latin1'), bytes, Buffer.from('\r\n0\r\n\r\n')])));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve(/^HTTP\/1\.1 2/.test(Buffer.concat(chunks).toString('latin1', 0, 12))));
  });
}

process.on('message', async (batch: Batch) => {
  let ok = 0;
  for (const body of batch.bodies) if (await post(batch.socketPath, body)) ok += 1;
  process.send?.({ ok });
});
