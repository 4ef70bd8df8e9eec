#!/usr/bin/env node
// Runs a command inside a network namespace that has only loopback (start it under `unshare -n`),
// so a test proves the command reaches nothing but what it was given. A fresh namespace has its
// own, downed `lo`: this brings it up, then listens on 127.0.0.1:<port> for each
// `--forward <port>=<unix socket>` and pipes every connection to the Unix socket, which the test
// process (outside the namespace) serves — Unix socket paths cross network namespaces, TCP does not.
// Plain .mjs so it starts in ~40 ms (no tsx); usage:
//   unshare -n node loopback-sandbox.mjs --forward 4599=/tmp/x/4599.sock -- claude -p hi
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';

const args = process.argv.slice(2);
const split = args.indexOf('--');
if (split < 1 && args[0] !== '--') fail('usage: loopback-sandbox.mjs [--forward <port>=<socket>]... -- <command> [args...]');
const own = args.slice(0, split);
const command = args.slice(split + 1);
if (command.length === 0) fail('no command after --');

const forwards = [];
for (let i = 0; i < own.length; i += 1) {
  if (own[i] !== '--forward') fail(`unknown option ${own[i]}`);
  const match = /^(\d+)=(.+)$/.exec(own[i + 1] ?? '');
  if (!match) fail(`--forward wants <port>=<socket>, got ${own[i + 1]}`);
  forwards.push({ port: Number(match[1]), socket: match[2] });
  i += 1;
}

const up = spawnSync('ip', ['link', 'set', 'lo', 'up'], { stdio: ['ignore', 'ignore', 'pipe'] });
if (up.status !== 0) fail(`could not bring up lo: ${up.error?.message ?? up.stderr?.toString().trim()}`);

const servers = await Promise.all(forwards.map(({ port, socket }) => listen(port, socket)));
const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('error', (error) => fail(`cannot run ${command[0]}: ${error.message}`));
child.on('exit', (code, signal) => {
  for (const server of servers) server.close();
  process.exit(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15));
});

function listen(port, socketPath) {
  const server = net.createServer((inbound) => {
    const outbound = net.connect(socketPath);
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function fail(message) {
  process.stderr.write(`loopback-sandbox: ${message}\n`);
  process.exit(70);
}
