import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { DEFAULT_BATCH_LIMITS } from '../../src/worker/batch-policy.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { summaryXml } from '../support/replies.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/**
 * Issue 36: every hook event made the observer loop read every open batch of every session from
 * the store, in a write transaction, to find that it was still open. An event now costs the loop
 * no store read unless its batch closes.
 */
describe('open batches while a turn goes on', () => {
  let fake: FakeLlm;
  let h: Harness;
  afterEach(async () => {
    await h?.stop();
    await fake?.close();
  });

  it('decides a turn’s tool events in memory, reads no other session’s open batch, and still sends the turn whole at its end', async () => {
    fake = await startFakeLlm('anthropic');
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: fake.url }), { batch: DEFAULT_BATCH_LIMITS });
    const reads: string[] = [];
    const queue = h.worker.store.queue;
    const claimBatch = queue.claimBatch;
    queue.claimBatch = (sessionId, ...rest) => {
      reads.push(sessionId);
      return claimBatch(sessionId, ...rest);
    };
    const settle = () => new Promise((r) => setImmediate(r));
    for (const session of ['a', 'b']) {
      await h.post('/api/sessions/init', { session_id: session, project: '/work/app', prompt: 'go' });
      await h.post('/api/sessions/observations', toolEvent(session, 0, { cwd: '/work/app' }));
    }
    await settle();
    expect(reads.sort()).toEqual(['a', 'b']);

    reads.length = 0;
    for (let i = 1; i <= 10; i += 1) {
      await h.post('/api/sessions/observations', toolEvent('a', i, { cwd: '/work/app' }));
      await settle();
    }
    expect(reads).toEqual([]);
    expect(fake.requests).toHaveLength(0);

    fake.push({ kind: 'text', text: summaryXml({ request: 'go', completed: 'went' }), usage: { input: 1_000, output: 100 } });
    await h.post('/api/sessions/summarize', { session_id: 'a', last_assistant_message: 'Done.' });
    const aDone = async () => (h.worker.store.db.prepare("SELECT count(*) AS n FROM queue WHERE session_id = 'a'").get() as { n: number }).n === 0;
    await waitFor(aDone);
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!.body.messages[0].content as string;
    for (let i = 0; i <= 10; i += 1) expect(sent).toContain(`<event id="e${i + 1}" tool="Read"`);
    expect(reads).not.toContain('b');
    expect((h.worker.store.db.prepare("SELECT count(*) AS n FROM queue WHERE session_id = 'b'").get() as { n: number }).n).toBe(1);
  });
});
