import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { DEFAULT_BATCH_LIMITS } from '../../src/worker/batch-policy.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

const FAST_LOOP = { concurrency: 2, backoff: { baseMs: 100, capMs: 200 }, authProbe: { baseMs: 100, capMs: 200 } };

describe('one observer call per agent turn', () => {
  let fake: FakeLlm;
  let h: Harness;
  afterEach(async () => {
    await h?.stop();
    await fake?.close();
  });

  async function start() {
    fake = await startFakeLlm('anthropic');
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: fake.url }), { loop: FAST_LOOP, batch: DEFAULT_BATCH_LIMITS });
  }

  it('sends a turn’s tool events and its end in one call, and confirms them together, exactly once', async () => {
    await start();
    fake.push({
      kind: 'text',
      text: `${observationXml({ type: 'discovery', title: 'Config lives in src/config.ts', filesRead: ['src/other.ts'], sources: ['e2'] })}${summaryXml({ request: 'read config', completed: 'read it' })}`,
      usage: { input: 2_000, output: 300 },
    });
    await h.post('/api/sessions/init', { session_id: 't', project: '/work/app', prompt: 'read the config' });
    for (let i = 1; i <= 5; i += 1)
      await h.post('/api/sessions/observations', toolEvent('t', i, { tool_input: { file_path: `/work/app/src/f${i}.ts` }, cwd: '/work/app' }));
    // The turn is open: nothing is sent before its end.
    expect(fake.requests).toHaveLength(0);
    await h.post('/api/sessions/summarize', { session_id: 't', last_assistant_message: 'I read the config.' });
    await h.drained();

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!.body.messages[0].content as string;
    for (let i = 1; i <= 5; i += 1) expect(sent).toContain(`<event id="e${i}" tool="Read"`);
    expect(sent).toContain('<turn_end>');
    expect(sent).not.toContain('contents 1'); // a read is its path, not its content
    const [observation] = h.worker.store.observations.forSession('t');
    // Provenance: the event it names; its files_read: what the model said plus what that event read.
    expect(observation).toMatchObject({ sourceMessageIds: [2], files_read: ['src/other.ts', 'src/f2.ts'] });
    expect(h.worker.store.summaries.forSession('t')[0]).toMatchObject({ sourceMessageIds: [1, 2, 3, 4, 5, 6] });
    expect(h.worker.store.queue.depth()).toBe(0);
    const spend = h.worker.store.observerCalls.ofSession('t');
    expect(spend).toMatchObject({ calls: 1, events: 5, tokensIn: 2_000, tokensOut: 300, costEstimated: true });
    const health = JSON.parse((await h.get('/health')).text);
    expect(health.observer).toMatchObject({ state: 'observing', today: { calls: 1, events: 5, tokens_in: 2_000, tokens_out: 300 } });
  });

  it('releases a failed turn as one batch and retries it as one call', async () => {
    await start();
    fake.push({ kind: 'status', status: 500 }, { kind: 'text', text: observationXml({ type: 'change', title: 'second try' }) });
    for (let i = 1; i <= 3; i += 1) await h.post('/api/sessions/observations', toolEvent('r', i));
    await h.post('/api/sessions/summarize', { session_id: 'r', last_assistant_message: 'done' });
    await h.drained(15_000);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.body.messages[0].content).toContain('<event id="e3"');
    expect(h.worker.store.observations.forSession('r')).toMatchObject([{ title: 'second try', sourceMessageIds: [1, 2, 3] }]);
    // The failed call generated nothing and counts nothing against the budget; the retry is the one spend.
    expect(h.worker.store.observerCalls.ofSession('r')).toMatchObject({ calls: 2 });
    expect(JSON.parse((await h.get('/health')).text).observer.budget.counted_today).toBe(1_200);
  });
});
