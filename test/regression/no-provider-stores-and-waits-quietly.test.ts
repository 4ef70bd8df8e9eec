import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider, createProviderFromEnv, type ObserverProvider } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/**
 * Bug (issue 17, item 10): with no API key (provider `none`, what a new user gets) the worker
 * logged "provider asked us to wait … auth" every few minutes with a growing backoff, and /health
 * and `worker status` said `degraded: … auth`. `none` means "store events, observe nothing".
 */
describe('the worker without a provider', () => {
  let h: Harness | undefined;
  let llm: FakeLlm | undefined;
  let temp: ReturnType<typeof makeTempDir> | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    await llm?.close();
    temp?.cleanup();
  });

  it('stores events without calling, warning or backing off, says so in /health, and observes them once a provider is configured', async () => {
    temp = makeTempDir();
    const selected = createProviderFromEnv({});
    if (!('provider' in selected)) throw new Error(selected.error);
    let calls = 0;
    const none: ObserverProvider = {
      name: selected.provider.name,
      model: selected.provider.model,
      complete: (r) => {
        calls += 1;
        return selected.provider.complete(r);
      },
    };
    expect(none.name).toBe('none');

    h = await startHarness(none, { dataDir: temp.dir });
    for (let i = 1; i <= 3; i += 1) expect((await h.post('/api/sessions/observations', toolEvent('quiet', i, { cwd: '/work/app' }))).status).toBe(202);
    await h.post('/api/sessions/end', { session_id: 'quiet' });
    // Let every wake-up the posts scheduled run its pass.
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
    h.worker.telemetry.tick(Date.now());

    const health = JSON.parse((await h.get('/health')).text);
    expect(health).toMatchObject({ status: 'ok', degraded: [], provider: 'none', observing: false, queue_depth: 3, in_flight: 0 });
    expect(health.note).toMatch(/^no observer provider \(none\): events are stored, not observed/);
    expect(calls).toBe(0);
    expect(h.log.records.filter((r) => r.level === 'warn' || r.level === 'error')).toEqual([]);
    const rows = h.worker.store.db.prepare('SELECT status, attempts, not_before FROM queue').all() as Array<{
      status: string;
      attempts: number;
      not_before: number;
    }>;
    expect(rows.map((r) => [r.status, r.attempts, r.not_before])).toEqual(Array(3).fill(['pending', 0, 0]));
    await h.stop();
    h = undefined;

    llm = await startFakeLlm('anthropic', { kind: 'text', text: observationXml({ type: 'discovery', title: 'Seen later' }) });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: llm.url }), { dataDir: temp.dir });
    await h.drained();
    // The three waiting events are one turn's: they go to the observer together, in one call.
    expect(h.worker.store.db.prepare('SELECT title, source_message_ids FROM observations').all()).toEqual([
      { title: 'Seen later', source_message_ids: '[1,2,3]' },
    ]);
    expect(llm.requests).toHaveLength(1);
    expect(JSON.parse((await h.get('/health')).text)).toMatchObject({ status: 'ok', observing: true, queue_depth: 0 });
  });
});
