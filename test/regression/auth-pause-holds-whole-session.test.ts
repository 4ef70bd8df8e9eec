import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/**
 * Bug: on 401 only the failing message waited for the probe; the session's next messages were
 * claimed and sent at once, each failing again, so a bad key cost one call per queued event.
 * Since issue 8 the wait holds the whole provider: other sessions wait too.
 */
describe('auth pause', () => {
  let fake: FakeLlm;
  let h: Harness;
  afterEach(async () => {
    await h?.stop();
    await fake?.close();
  });

  it('holds every message of every session until the probe, then sends one call', async () => {
    fake = await startFakeLlm('anthropic', { kind: 'status', status: 401, errorType: 'authentication_error' });
    h = await startHarness(createAnthropicProvider({ apiKey: 'bad', baseUrl: fake.url }), {
      loop: { concurrency: 2, backoff: { baseMs: 50, capMs: 100 }, authProbe: { baseMs: 60_000, capMs: 60_000 } },
    });
    for (let i = 1; i <= 5; i += 1) await h.post('/api/sessions/observations', toolEvent(i % 2 === 0 ? 'paused' : 'other', i));
    await waitFor(async () => JSON.parse((await h.get('/health')).text).degraded.some((d: { reason: string }) => d.reason === 'auth'));
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.requests).toHaveLength(1);
    expect(h.worker.store.queue.depth()).toBe(5);
  });
});
