import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/**
 * Bug (issue 8, item 9): `Retry-After: 3600` on a 429 became a 20-minute wait for one message,
 * every new session still called the rate-limited provider, and /health said ok.
 */
describe('a provider that says wait', () => {
  let fake: FakeLlm;
  let h: Harness;
  afterEach(async () => {
    await h?.stop();
    await fake?.close();
  });

  it('holds every session for the full Retry-After, and /health and telemetry status say why and until when', async () => {
    fake = await startFakeLlm('anthropic', { kind: 'status', status: 429, errorType: 'rate_limit_error', headers: { 'retry-after': '3600' } });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: fake.url }), {
      loop: { concurrency: 2, backoff: { baseMs: 50, capMs: 100 }, authProbe: { baseMs: 50, capMs: 100 } },
    });
    const sent = Date.now();
    await h.post('/api/sessions/observations', toolEvent('first', 1));
    await waitFor(async () => JSON.parse((await h.get('/health')).text).status === 'degraded');
    for (const session of ['second', 'third', 'fourth']) await h.post('/api/sessions/observations', toolEvent(session, 2));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.requests).toHaveLength(1);
    expect(h.worker.store.queue.depth()).toBe(4);

    const health = JSON.parse((await h.get('/health')).text);
    expect(health.degraded).toEqual([expect.objectContaining({ reason: 'rate_limit' })]);
    const waitMs = Date.parse(health.degraded[0].next_attempt_at) - sent;
    expect(waitMs).toBeGreaterThanOrEqual(3_599_000);
    expect(waitMs).toBeLessThanOrEqual(3_601_000 + (Date.now() - sent));
    const status = JSON.parse((await h.get('/api/telemetry/status')).text);
    expect(status.worker).toMatchObject({
      status: 'degraded',
      degraded: [expect.objectContaining({ reason: 'rate_limit', next_attempt_at: health.degraded[0].next_attempt_at })],
    });
  });

  it('caps a Retry-After beyond an hour at one hour', async () => {
    fake = await startFakeLlm('anthropic', { kind: 'status', status: 529, errorType: 'overloaded_error', headers: { 'retry-after': String(7 * 24 * 3600) } });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: fake.url }), {
      loop: { concurrency: 1, backoff: { baseMs: 50, capMs: 100 }, authProbe: { baseMs: 50, capMs: 100 } },
    });
    const sent = Date.now();
    await h.post('/api/sessions/observations', toolEvent('s', 1));
    await waitFor(async () => JSON.parse((await h.get('/health')).text).status === 'degraded');
    const health = JSON.parse((await h.get('/health')).text);
    expect(health.degraded[0].reason).toBe('overloaded');
    expect(Date.parse(health.degraded[0].next_attempt_at) - sent).toBeLessThanOrEqual(3_600_000 + (Date.now() - sent));
  });
});
