/**
 * Issue 36: a bulk writer in a process of its own (`memtrace import`, `forget`) holds the store's
 * write lock for short transactions, but a commit that merges the search index held it for up to
 * 460 ms at a million observations, and every hook waited that long for its own commit. Now a
 * hook waits at most HOOK_STORE_WAIT_MS: past that the worker keeps its event in the spool,
 * answers, and stores it once the lock is free, in order and once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runWorkerControl } from '../../src/cli/commands/worker-control.js';
import { listSpool, WORKER_SOCKET } from '../../src/data-dir/index.js';
import { postOverSocket } from '../../src/hook/socket-request.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { captureIO } from '../support/cli-io.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

const fixture = JSON.parse(fs.readFileSync('test/fixtures/claude-code/hooks/post-tool-use-read.json', 'utf8')) as Record<string, unknown>;

/** Another process holding the store's write lock until its stdin closes; it then commits a row of its own. */
async function holdWriteLock(file: string): Promise<ChildProcess> {
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    db.prepare("INSERT INTO store_meta (key, value) VALUES ('other_writer', '1') ON CONFLICT (key) DO NOTHING").run();
    process.stdout.write('locked\\n');
    process.stdin.resume();
    process.stdin.on('end', () => { db.exec('COMMIT'); db.close(); });
  `;
  const child = spawn(process.execPath, ['-e', script, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    child.on('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
  });
  return child;
}

describe('hooks while another process holds the store’s write lock', () => {
  let h: Harness | undefined;
  let holder: ChildProcess | undefined;
  afterEach(async () => {
    holder?.kill();
    await h?.stop();
  });

  it('are answered from the spool, then stored in the order they came, each once, when the lock is free', async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"text":""}'] }));
    const socket = path.join(h.dataDir, WORKER_SOCKET);
    const hook = (id: string) =>
      postOverSocket(
        socket,
        '/hook/claude-code/post-tool-use',
        { 'x-memtrace-hook-via': 'settings' },
        Buffer.from(JSON.stringify({ ...fixture, tool_use_id: id })),
        Date.now() + 10_000,
      );
    const storedIds = () =>
      (
        h!.worker.store.db.prepare("SELECT tool_use_id FROM queue_seen WHERE tool_use_id LIKE 'toolu_busy_%' ORDER BY queue_id").all() as Array<{
          tool_use_id: string;
        }>
      ).map((r) => r.tool_use_id);

    expect(await hook('toolu_busy_0')).toMatchObject({ ok: true, status: 202 });
    expect(storedIds()).toEqual(['toolu_busy_0']);

    holder = await holdWriteLock(path.join(h.dataDir, 'memtrace.db'));
    for (const id of ['toolu_busy_1', 'toolu_busy_2', 'toolu_busy_3']) expect(await hook(id)).toMatchObject({ ok: true, status: 202 });
    expect(listSpool(h.dataDir)).toHaveLength(3);
    expect(storedIds()).toEqual(['toolu_busy_0']);
    expect(fs.readFileSync(path.join(h.dataDir, 'spool', listSpool(h.dataDir)[0]!), 'utf8')).toContain('"failure":"busy"');

    holder.stdin!.end();
    await new Promise((resolve) => holder!.on('exit', resolve));
    await waitFor(() => listSpool(h!.dataDir).length === 0);
    expect(await hook('toolu_busy_4')).toMatchObject({ ok: true, status: 202 });
    expect(storedIds()).toEqual(['toolu_busy_0', 'toolu_busy_1', 'toolu_busy_2', 'toolu_busy_3', 'toolu_busy_4']);
    expect(JSON.parse((await h.get('/health')).text).hooks).toMatchObject({ replayed_from_spool: 3, spooled_busy: 3 });
    const status = captureIO({ env: { MEMTRACE_DATA_DIR: h.dataDir, HOME: h.dataDir } });
    expect(await runWorkerControl('status', [], status.io)).toBe(0);
    expect(status.stdout()).toContain("3 replayed from the spool (3 kept there while another process held the store's write lock)");
    expect(h.worker.store.db.prepare("SELECT value FROM store_meta WHERE key = 'other_writer'").get()).toEqual({ value: '1' });
  });
});
