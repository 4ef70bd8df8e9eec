/**
 * Issue 36: every hook call the worker took wrote a debug line of its hook_rollup counters to
 * worker.log (one line per tool call of every session: most of the log, and a share of the
 * call's CPU), and folded them in a second commit after the reply. Now each call's counters are
 * folded in the event's own transaction, and no line is written for them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKER_SOCKET } from '../../src/data-dir/index.js';
import { postOverSocket } from '../../src/hook/socket-request.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

const fixture = JSON.parse(fs.readFileSync('test/fixtures/claude-code/hooks/post-tool-use-read.json', 'utf8')) as Record<string, unknown>;

describe('hook calls on the data dir socket', () => {
  let h: Harness;
  afterEach(() => h.stop());

  it('are folded into hook_rollup, and leave no line in the log', async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"text":""}'] }), { env: { MEMTRACE_TELEMETRY: '1' } });
    const socket = path.join(h.dataDir, WORKER_SOCKET);
    for (let i = 0; i < 5; i += 1) {
      const body = Buffer.from(JSON.stringify({ ...fixture, tool_use_id: `toolu_log_${i}` }));
      const reply = await postOverSocket(
        socket,
        '/hook/claude-code/post-tool-use',
        { 'x-memtrace-hook-via': 'settings', 'x-memtrace-hook-started': String(Date.now() - 7) },
        body,
        Date.now() + 10_000,
      );
      expect(reply).toMatchObject({ ok: true, status: 202 });
    }
    const row = h.worker.store.db.prepare("SELECT state FROM telemetry_accumulators WHERE event = 'hook_rollup'").get() as { state: string } | undefined;
    expect(JSON.parse(row!.state).counters).toMatchObject({ count: 5 });
    expect(h.log.records.filter((r) => r.message === 'counters' && r.fields?.event === 'hook_rollup')).toEqual([]);
  });
});
