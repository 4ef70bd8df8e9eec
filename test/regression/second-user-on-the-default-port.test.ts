import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PORT } from '../../src/config.js';
import { runHookProcess } from '../support/hook-process.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Bug (issue 35, item 3): on a shared machine a second worker with the default settings refused
 * to start (`port 37877 is already in use by another program`), so the second user's hooks spooled
 * for ever, although hooks reach a worker over its data dir's socket. Run in a network namespace
 * of its own (root, `unshare -n`), so the default port is really the default port and another
 * program really holds it, whatever else runs on this machine.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/memtrace.cjs');
const FIXTURE = fs.readFileSync(path.join(ROOT, 'test/fixtures/claude-code/hooks/post-tool-use-read.json'), 'utf8');
const HOLD_PORT = `
require('node:child_process').execFileSync('ip', ['link', 'set', 'lo', 'up']);
require('node:net').createServer(() => {}).listen(${DEFAULT_PORT}, '127.0.0.1', () => process.stdout.write('ready\\n'));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;
const canUnshare = process.getuid?.() === 0 && spawnSync('unshare', ['-n', 'true']).status === 0;

describe.skipIf(!canUnshare)('two users’ workers, another program on the default port', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let holder: ChildProcess;
  const workers: ChildProcess[] = [];
  /** A command inside the namespace where another program holds the default port. */
  const inside = (args: string[]) => ['nsenter', `--net=/proc/${holder.pid}/ns/net`, '--', ...args];
  const envFor = (dataDir: string, extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '',
    HOME: temp.dir,
    MEMTRACE_DATA_DIR: dataDir,
    MEMTRACE_PROVIDER: 'none',
    MEMTRACE_TELEMETRY: '0',
    ...extra,
  });
  const startWorker = async (dataDir: string) => {
    const [command, ...args] = inside([process.execPath, BIN, 'worker']);
    const child = spawn(command!, args, { env: envFor(dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
    workers.push(child);
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(output) || child.exitCode !== null, 20_000);
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
    if (!port) throw new Error(`worker did not start:\n${output}`);
    return { port: Number(port), output: () => output };
  };
  const run = (args: string[], env: Record<string, string>) => {
    const [command, ...rest] = inside(args);
    return spawnSync(command!, rest, { env, encoding: 'utf8', timeout: 30_000 });
  };
  const toolIds = (dataDir: string) => {
    const db = new Database(path.join(dataDir, 'memtrace.db'), { readonly: true });
    try {
      return (db.prepare('SELECT tool_use_id FROM queue ORDER BY id').all() as Array<{ tool_use_id: string }>).map((r) => r.tool_use_id);
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    temp = makeTempDir('memtrace-two-users-');
    holder = spawn('unshare', ['-n', process.execPath, '-e', HOLD_PORT], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.once('data', () => resolve());
      holder.once('exit', (code) => reject(new Error(`the port holder exited (${code})`)));
    });
  });
  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => (w.exitCode === null ? new Promise((r) => w.once('exit', r)) : null)));
    holder?.stdin?.end();
    temp?.cleanup();
  });

  it('starts each user’s worker on a free port, says which, and keeps each user’s events in their own store', async () => {
    const alice = path.join(temp.dir, 'alice');
    const bob = path.join(temp.dir, 'bob');
    const a = await startWorker(alice);
    const b = await startWorker(bob);
    expect(a.port).not.toBe(DEFAULT_PORT);
    expect(b.port).not.toBe(DEFAULT_PORT);
    expect(a.port).not.toBe(b.port);
    expect(a.output()).toContain(`port ${DEFAULT_PORT} is taken (another user's worker or another program): the HTTP API listens on 127.0.0.1:${a.port}`);

    // Hooks go over each data dir's socket (from outside the namespace: a socket is a file, not a port).
    const fire = (dataDir: string, id: string) =>
      runHookProcess(
        ['sh', path.join(ROOT, 'bin/memtrace-hook'), 'claude-code', 'post-tool-use', 'settings', process.execPath],
        Buffer.from(FIXTURE.replace('toolu_e2e_read', id)),
        { env: envFor(dataDir), cwd: temp.dir },
      );
    expect((await fire(alice, 'toolu_alice_1')).code).toBe(0);
    expect((await fire(bob, 'toolu_bob_1')).code).toBe(0);
    expect((await fire(alice, 'toolu_alice_2')).code).toBe(0);
    expect(toolIds(alice)).toEqual(['toolu_alice_1', 'toolu_alice_2']);
    expect(toolIds(bob)).toEqual(['toolu_bob_1']);

    // Every command that calls the HTTP API finds the port the worker took (worker.json), not the default.
    const status = run([process.execPath, BIN, 'worker', 'status', '--json'], envFor(alice));
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, port: a.port, status: 'ok', lifecycle: { port: a.port, port_wanted: DEFAULT_PORT } });
    const text = run([process.execPath, BIN, 'worker', 'status'], envFor(bob));
    expect(text.stdout).toContain(`http port    ${b.port}, because ${DEFAULT_PORT} was taken by another program`);
    const telemetry = run([process.execPath, BIN, 'telemetry', 'status', '--json'], envFor(bob));
    expect(JSON.parse(telemetry.stdout)).toMatchObject({ worker: { running: true, port: b.port } });
  });

  it('still refuses, in one line, a port the user set that is taken', () => {
    const carol = path.join(temp.dir, 'carol');
    const refused = run([process.execPath, BIN, 'worker'], envFor(carol, { MEMTRACE_PORT: String(DEFAULT_PORT) }));
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `memtrace worker: port ${DEFAULT_PORT} is already in use by another program; set MEMTRACE_PORT or --port`,
    ]);
  });
});
