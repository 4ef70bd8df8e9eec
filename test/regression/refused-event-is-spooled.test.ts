/**
 * Issue 17, item 2: an event the worker refused (401 after a token rotated, a worker restarted on
 * another data dir) was dropped. Now any answer but success — no worker, a dead socket, no answer
 * in time, a fault — leaves the event in the spool, and the worker replays the spool in order,
 * exactly once.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSpool } from '../../src/data-dir/index.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { hookCommand, runHookProcess, type HookPath } from '../support/hook-process.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { holdWorkerStarts } from '../support/no-worker-starts.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

const fixture = JSON.parse(fs.readFileSync('test/fixtures/claude-code/hooks/post-tool-use-read.json', 'utf8')) as Record<string, unknown>;
const refusing = () => createReplayProvider({ lines: ['{"error":{"status":401,"type":"authentication_error"}}'] });
const event = (n: number) => Buffer.from(JSON.stringify({ ...fixture, tool_use_id: `toolu_${n}` }));

describe('an event the worker does not take is spooled, then replayed in order exactly once', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let h: Harness | undefined;
  const servers: net.Server[] = [];
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    temp.cleanup();
  });
  const setup = () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    // What is spooled with no worker is the point: no hook here may start one.
    holdWorkerStarts(dataDir);
    return { dataDir, env: { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir, MEMTRACE_HOOK_TIMEOUT_MS: '500' } };
  };
  /** Something on the data dir's socket that reads and then answers (or never does). */
  const fakeWorker = (dataDir: string, answer: string | null) =>
    new Promise<void>((resolve) => {
      const server = net.createServer((socket) => {
        socket.on('data', () => {
          if (answer !== null) socket.end(answer);
        });
      });
      servers.push(server);
      server.listen(path.join(dataDir, 'worker.sock'), () => resolve());
    });
  const queued = () =>
    (h!.worker.store.db.prepare('SELECT tool_use_id FROM queue ORDER BY id').all() as Array<{ tool_use_id: string }>).map((r) => r.tool_use_id);

  it.each<HookPath>(['forwarder', 'forwarder-curl', 'forwarder-native', 'installed', 'node'])(
    'spools when no worker runs, and when the socket is a dead one (%s)',
    async (via) => {
      const { dataDir, env } = setup();
      if (via === 'forwarder-native' || via === 'installed') buildNativeForwarderInto(dataDir);
      expect((await runHookProcess(hookCommand(via, 'claude-code', 'post-tool-use', dataDir), event(1), { env })).code).toBe(0);
      // The perl forwarder hands the event to a Node hook in the background.
      await waitFor(() => listSpool(dataDir).length === 1);
      // A socket file left by a worker killed with -9: nothing accepts on it.
      const socketPath = path.join(dataDir, 'worker.sock');
      const dead = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('up'))`]);
      await new Promise((r) => dead.stdout.once('data', r));
      dead.kill('SIGKILL');
      await new Promise((r) => dead.once('close', r));
      expect(fs.statSync(socketPath).isSocket()).toBe(true);
      expect((await runHookProcess(hookCommand(via, 'claude-code', 'post-tool-use', dataDir), event(2), { env })).code).toBe(0);
      await waitFor(() => listSpool(dataDir).length >= 2);
      expect(listSpool(dataDir)).toHaveLength(2);
    },
  );

  it('spools what an answer other than success (401, 500) or no answer in time leaves behind (node)', async () => {
    const { dataDir, env } = setup();
    await fakeWorker(dataDir, 'HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    await runHookProcess(hookCommand('node', 'claude-code', 'post-tool-use'), event(1), { env });
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    await fakeWorker(dataDir, 'HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    await runHookProcess(hookCommand('node', 'claude-code', 'post-tool-use'), event(2), { env });
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    await fakeWorker(dataDir, null);
    await runHookProcess(hookCommand('node', 'claude-code', 'post-tool-use'), event(3), { env });
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    const failures = listSpool(dataDir).map((name) => JSON.parse(fs.readFileSync(path.join(dataDir, 'spool', name), 'utf8')).failure);
    expect(failures).toEqual(['refused', 'refused', 'timeout']);

    h = await startHarness(refusing(), { dataDir });
    expect(queued()).toEqual(['toolu_1', 'toolu_2', 'toolu_3']);
    expect(listSpool(dataDir)).toEqual([]);
  });

  it('a worker that cannot store an event keeps it in the spool itself, and the hook does not spool it twice', async () => {
    const { dataDir, env } = setup();
    h = await startHarness(refusing(), { dataDir });
    h.worker.store.db.exec('ALTER TABLE queue RENAME TO queue_away');
    for (const via of ['forwarder', 'node'] as const)
      expect((await runHookProcess(hookCommand(via, 'claude-code', 'post-tool-use'), event(via === 'forwarder' ? 1 : 2), { env })).code).toBe(0);
    expect(listSpool(dataDir)).toHaveLength(2);
    h.worker.store.db.exec('ALTER TABLE queue_away RENAME TO queue');
    await h.stop();
    h = await startHarness(refusing(), { dataDir });
    expect(queued()).toEqual(['toolu_1', 'toolu_2']);
  });

  it('replays in the order the events were spooled, and never twice', async () => {
    const { dataDir, env } = setup();
    for (let n = 1; n <= 6; n += 1) await runHookProcess(hookCommand(n % 2 ? 'forwarder' : 'node', 'claude-code', 'post-tool-use'), event(n), { env });
    await waitFor(() => listSpool(dataDir).length === 6);
    h = await startHarness(refusing(), { dataDir });
    expect(queued()).toEqual(['toolu_1', 'toolu_2', 'toolu_3', 'toolu_4', 'toolu_5', 'toolu_6']);
    await h.stop();
    h = await startHarness(refusing(), { dataDir });
    expect(queued()).toEqual(['toolu_1', 'toolu_2', 'toolu_3', 'toolu_4', 'toolu_5', 'toolu_6']);
    expect(JSON.parse((await h.get('/health')).text).hooks.replayed_from_spool).toBe(0);
  });
});
