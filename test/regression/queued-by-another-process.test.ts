import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { openStore } from '../../src/store/index.js';
import { observationXml } from '../support/replies.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';
import { queuedToolUse } from '../support/queued-events.js';

/**
 * Bug (found while merging transcript mining): the observer loop read which sessions had queued
 * work only when it started, so events `memtrace mine` queued into a running worker's database
 * waited for the worker's next start.
 */
describe('work queued by another process', () => {
  let h: Harness | undefined;
  afterEach(() => h?.stop());

  it('is observed by the running worker without a restart', async () => {
    h = await startHarness(createReplayProvider({ lines: [JSON.stringify({ text: observationXml({ type: 'discovery', title: 'From the miner' }) })] }), {
      tickMs: 100,
    });
    const other = openStore(path.join(h.dataDir, 'memtrace.db'));
    other.queue.enqueue({
      sessionId: 'mined-session',
      kind: 'observation',
      toolUseId: 'toolu_mined',
      payload: queuedToolUse('mined-session', { cwd: null }),
      nowMs: Date.now(),
    });
    other.close();
    await waitFor(() => h!.worker.store.observations.count() === 1, 5_000);
    expect(h.worker.store.queue.depth()).toBe(0);
  });
});
