import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildContext, createContextQuery } from '../../src/context/index.js';
import { createMemoryLogger } from '../../src/log.js';
import { openStore } from '../../src/store/index.js';
import { processTurn } from '../../src/worker/turn-processor.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { queuedToolUse } from '../support/queued-events.js';

/**
 * Bug carried over from the seeds: tokens saved were counted once per observation, so a turn
 * that produced three observations claimed its discovery cost three times.
 */
describe('tokens saved vs naive', () => {
  it('counts a turn’s tokens once however many of its observations are injected', () => {
    const temp = makeTempDir();
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    store.sessions.init({ sessionId: 's', project: 'app', nowMs: 1 });
    store.queue.enqueue({ sessionId: 's', kind: 'observation', toolUseId: 't', payload: queuedToolUse('s'), nowMs: 1 });
    const message = store.queue.claimNext('s', 2)!;
    const reply = ['a', 'b', 'c'].map((t) => observationXml({ type: 'bugfix', title: `obs ${t}` })).join('');
    processTurn(
      { store, log: createMemoryLogger() },
      {
        messages: [message],
        session: { project: 'app' },
        reply: { text: reply, usage: { inputTokens: 2_400, outputTokens: 600 }, costUsd: null, model: 'm' },
        provider: 'replay',
        promptVersion: 'v',
        durationMs: 1,
        nowMs: 10,
      },
    );
    const result = buildContext(createContextQuery(store.db), { project: 'app', budgetTokens: 5_000, nowMs: 20 });
    expect(result.observationsInjected).toBe(3);
    expect(result.tokensSavedVsNaive).toBe(3_000 - result.tokensInjected);
    store.close();
    temp.cleanup();
  });
});
