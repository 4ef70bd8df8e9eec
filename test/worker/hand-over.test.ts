import fs from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runningWorker } from '../../src/data-dir/index.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { askHandOver } from '../../src/worker/hand-over-client.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml } from '../support/replies.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

describe('a worker handing over to a newer version', () => {
  let fake: FakeLlm | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    await fake?.close();
  });

  it('closes its socket at once, lets the observer call in flight finish (paid once), then lets the data dir go', async () => {
    fake = await startFakeLlm('anthropic', {
      kind: 'delay',
      ms: 2_000,
      reply: { kind: 'text', text: observationXml({ type: 'change', title: 'finished during the hand-over' }) },
    });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: fake.url, timeoutMs: 60_000 }), { env: { MEMTRACE_TELEMETRY: '0' } });
    await h.post('/api/sessions/observations', toolEvent('s', 1, { cwd: '/w/s' }));
    await waitFor(() => fake!.requests.length === 1);

    expect(await askHandOver(h.dataDir, '0.1.0')).toBe('refused');
    expect(await askHandOver(h.dataDir, '99.0.0')).toBe('accepted');
    // New hooks no longer reach it (they spool for the newer worker), while the call goes on.
    await waitFor(() => !fs.existsSync(path.join(h!.dataDir, 'worker.sock')));
    expect(await askHandOver(h.dataDir, '99.0.0')).toBe('unreachable');
    expect(runningWorker(h.dataDir)).not.toBeNull();

    expect(await h.worker.handedOver).toBe('99.0.0');
    expect(fake.requests).toHaveLength(1);
    expect(runningWorker(h.dataDir)).toBeNull();
    // The call's reply was stored and its message confirmed: nothing for the next worker to pay for again.
    const db = new Database(path.join(h.dataDir, 'memtrace.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) AS n FROM queue').get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT title FROM observations').all()).toEqual([{ title: 'finished during the hand-over' }]);
    } finally {
      db.close();
    }
  });
});
