/**
 * Issue 17, item 4: the hook-accounting middleware ran before the token check, so a tokenless
 * `GET /health` with `x-memtrace-hook-*` headers was folded into hook_rollup and sent to the
 * fleet. Now only hook calls that came through the hooks' own door (the data dir's socket) or the
 * spool are counted; a request on the TCP port is never a hook call, with or without a token.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

describe('requests on the TCP port carrying hook headers', () => {
  let h: Harness;
  afterEach(() => h.stop());

  it('are not counted as hook calls, refused or not', async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"error":{"status":401,"type":"authentication_error"}}'] }), { env: { MEMTRACE_TELEMETRY: '1' } });
    const hookHeaders = { 'x-memtrace-hook-event': 'post_tool_use', 'x-memtrace-hook-via': 'settings', 'x-memtrace-hook-started': String(Date.now() - 50) };
    for (let i = 0; i < 5; i += 1) {
      expect((await fetch(`${h.worker.url}/health`, { headers: hookHeaders })).status).toBe(200);
      expect(
        (
          await fetch(`${h.worker.url}/api/sessions/end`, {
            method: 'POST',
            headers: { ...hookHeaders, 'content-type': 'application/json' },
            body: '{"session_id":"s"}',
          })
        ).status,
      ).toBe(401);
    }
    await fetch(`${h.worker.url}/api/sessions/end`, {
      method: 'POST',
      headers: { ...hookHeaders, 'content-type': 'application/json', authorization: `Bearer ${h.token}` },
      body: '{"session_id":"s"}',
    });
    const health = JSON.parse((await h.get('/health')).text);
    expect(health.hooks).toMatchObject({ accepted: 0, rejected: 0, failed: 0 });
    const folded = h.worker.store.db.prepare("SELECT count(*) AS n FROM telemetry_accumulators WHERE event = 'hook_rollup'").get() as { n: number };
    expect(folded.n).toBe(0);
  });
});
