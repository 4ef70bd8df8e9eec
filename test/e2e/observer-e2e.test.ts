import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider, createOpenAICompatibleProvider } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';
import { DEFAULT_BATCH_LIMITS, type BatchLimits } from '../../src/worker/batch-policy.js';
import { waitFor } from '../support/wait-for.js';

const FAST_LOOP = { concurrency: 2, backoff: { baseMs: 150, capMs: 600 }, authProbe: { baseMs: 200, capMs: 400 } };

describe.each(['anthropic', 'openai'] as const)('worker end to end against a fake %s server', (wire) => {
  let fake: FakeLlm;
  let h: Harness;
  afterEach(async () => {
    await h?.stop();
    await fake?.close();
  });

  async function start(batch?: BatchLimits) {
    fake = await startFakeLlm(wire);
    const provider =
      wire === 'anthropic'
        ? createAnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: fake.url, timeoutMs: 2_000 })
        : createOpenAICompatibleProvider({ apiKey: 'sk-test', baseUrl: fake.url, timeoutMs: 2_000 });
    h = await startHarness(provider, { loop: { ...FAST_LOOP, concurrency: 1 }, ...(batch ? { batch } : {}) });
  }

  it('turns one agent turn into one call whose observations name their events; prose and empty drop only their own turn', async () => {
    // The product's batching: a turn's events wait for its Stop.
    await start(DEFAULT_BATCH_LIMITS);
    fake.push(
      {
        kind: 'text',
        text:
          observationXml({ type: 'bugfix', title: 'Cookie set before redirect', narrative: 'Fixed the race.', sources: ['e1', 'e3'] }) +
          observationXml({ type: 'decision', title: 'Keep SQLite WAL', narrative: 'WAL stays on.', sources: ['e2'] }) +
          summaryXml({ request: 'fix login', completed: 'fixed' }),
      },
      { kind: 'text', text: 'Looks like a normal read; nothing to record. I cannot continue this session.' },
      { kind: 'text', text: '' },
    );
    expect((await h.post('/api/sessions/init', { session_id: 's1', project: 'app', prompt: 'fix login' })).status).toBe(200);
    for (let i = 1; i <= 3; i += 1) expect((await h.post('/api/sessions/observations', toolEvent('s1', i))).status).toBe(202);
    expect((await h.post('/api/sessions/summarize', { session_id: 's1', last_assistant_message: 'done' })).status).toBe(202);
    await h.drained();
    // The next two turns: a prose reply and an empty one, each dropping only its own turn.
    for (const n of [4, 5]) {
      await h.post('/api/sessions/observations', toolEvent('s1', n));
      await h.post('/api/sessions/summarize', { session_id: 's1', last_assistant_message: `turn ${n}` });
      await h.drained();
    }

    const stored = h.worker.store.observations.recentForProject('app', 10);
    expect(stored.map((o) => [o.title, o.sourceMessageIds]).sort()).toEqual([
      ['Cookie set before redirect', [1, 3]],
      ['Keep SQLite WAL', [2]],
    ]);
    expect(h.worker.store.summaries.latestForProject('app')?.completed).toBe('fixed');
    const drops = h.log.records.filter((r) => r.message === 'observer output dropped').map((r) => [r.fields?.message_ids, r.fields?.class]);
    expect(drops).toEqual([
      [[5, 6], 'prose'],
      [[7, 8], 'idle'],
    ]);
    const context = await h.get('/api/context/inject?project=app&budget_tokens=800');
    expect(context.status).toBe(200);
    expect(context.text).toContain('Cookie set before redirect');
    expect(context.text).toContain('Keep SQLite WAL');
    expect(fake.requests).toHaveLength(3);
  });

  it('waits on 401, keeps the messages, says why in /health, and resumes when the provider recovers', async () => {
    await start();
    fake.setFallback({ kind: 'status', status: 401, errorType: 'authentication_error' });
    await h.post('/api/sessions/observations', toolEvent('s2', 1, { cwd: '/x/app2' }));
    await waitFor(async () => JSON.parse((await h.get('/health')).text).status === 'degraded');
    const health = JSON.parse((await h.get('/health')).text);
    expect(health).toMatchObject({ status: 'degraded', queue_depth: 1, degraded: [{ reason: 'auth' }] });
    expect(Date.parse(health.degraded[0].next_attempt_at)).toBeGreaterThan(Date.now() - 1_000);
    fake.setFallback({ kind: 'text', text: observationXml({ type: 'feature', title: 'After recovery' }) });
    await h.drained();
    expect(h.worker.store.observations.recentForProject('/x/app2', 5).map((o) => o.title)).toEqual(['After recovery']);
    expect(JSON.parse((await h.get('/health')).text)).toMatchObject({ status: 'ok', degraded: [] });
  });

  it.each([
    ['429', { kind: 'status', status: 429, errorType: 'rate_limit_error' }],
    ['529', { kind: 'status', status: 529, errorType: 'overloaded_error' }],
    ['500', { kind: 'status', status: 500 }],
    ['a slow reply past the timeout', { kind: 'delay', ms: 3_000, reply: { kind: 'text', text: 'late' } }],
  ] as const)('releases the message on %s and retries it after a backoff', async (_, failure) => {
    await start();
    fake.push(failure as never, { kind: 'text', text: observationXml({ type: 'change', title: 'Second try' }) });
    const sent = Date.now();
    await h.post('/api/sessions/observations', toolEvent('s3', 1, { cwd: '/x/app3' }));
    await h.drained(15_000);
    expect(h.worker.store.observations.recentForProject('/x/app3', 5).map((o) => o.title)).toEqual(['Second try']);
    expect(fake.requests).toHaveLength(2);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(FAST_LOOP.backoff.baseMs);
  });

  it('drops a request the provider can never accept (400) and counts it, without retrying', async () => {
    await start();
    fake.push({ kind: 'status', status: 400, errorType: 'invalid_request_error' });
    await h.post('/api/sessions/observations', toolEvent('s4', 1));
    await h.drained();
    expect(fake.requests).toHaveLength(1);
    expect(h.worker.store.queue.depth()).toBe(0);
  });
});
