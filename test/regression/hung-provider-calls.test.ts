import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml } from '../support/replies.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/** Bug (issue 8, item 10): two hung provider calls stalled every session for a minute. */
describe('hung provider calls', () => {
  let fake: FakeLlm;
  let h: Harness;
  afterEach(async () => {
    await h?.stop();
    await fake?.close();
  });

  it('are abandoned at MEMTRACE_PROVIDER_TIMEOUT_MS, their messages kept, and other sessions go on', async () => {
    const ok = (title: string) => ({ kind: 'text' as const, text: observationXml({ type: 'change', title }) });
    fake = await startFakeLlm('anthropic', ok('later'));
    // Two calls hang past the test's own time limit; the provider's own timeout is a minute, so only
    // the loop's deadline can free a slot for the third session (concurrency 2).
    fake.push({ kind: 'delay', ms: 600_000, reply: ok('too late') }, { kind: 'delay', ms: 600_000, reply: ok('too late') }, ok('third session'));
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: fake.url, timeoutMs: 60_000 }), {
      env: { MEMTRACE_TELEMETRY: '0', MEMTRACE_PROVIDER_TIMEOUT_MS: '1000' },
      loop: { concurrency: 2, backoff: { baseMs: 5_000, capMs: 5_000 }, authProbe: { baseMs: 5_000, capMs: 5_000 } },
    });
    await h.post('/api/sessions/observations', toolEvent('a', 1, { cwd: '/w/a' }));
    await h.post('/api/sessions/observations', toolEvent('b', 2, { cwd: '/w/b' }));
    await waitFor(() => fake.requests.length === 2);
    await h.post('/api/sessions/observations', toolEvent('c', 3, { cwd: '/w/c' }));
    const busy = JSON.parse((await h.get('/health')).text);
    expect(busy.in_flight).toBe(2);
    expect(busy.in_flight_age_ms).toHaveLength(2);

    await waitFor(() => h.worker.store.observations.recentForProject('/w/c', 5).length === 1, 25_000);
    // The abandoned messages are pending again (with backoff), not lost and not confirmed by the late replies.
    await waitFor(async () => JSON.parse((await h.get('/health')).text).in_flight === 0, 25_000);
    const rows = h.worker.store.db.prepare('SELECT session_id, status, attempts FROM queue ORDER BY id').all();
    expect(rows).toEqual([
      { session_id: 'a', status: 'pending', attempts: 1 },
      { session_id: 'b', status: 'pending', attempts: 1 },
    ]);
  });
});
