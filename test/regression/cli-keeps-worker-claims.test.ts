import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openStore } from '../../src/store/index.js';
import { captureIO } from '../support/cli-io.js';
import { makeTempDir } from '../support/temp-dir.js';
import { queuedToolUse } from '../support/queued-events.js';

/**
 * `telemetry status` (and any command opening the store beside a running worker) returned the
 * worker's claimed, in-flight messages to pending: the worker's confirm then missed
 * (`status = 'claimed'` no longer held) and the message was observed a second time.
 */
describe('regression: a CLI command opening the store leaves a running worker’s claims alone', () => {
  const temp = makeTempDir();
  afterAll(() => temp.cleanup());

  it('keeps a claimed message claimed through `telemetry status`', async () => {
    const dataDir = path.join(temp.dir, 'data');
    const worker = openStore(path.join(dataDir, 'memtrace.db'));
    const { id } = worker.queue.enqueue({ sessionId: 's', kind: 'observation', toolUseId: 't', payload: queuedToolUse('s'), nowMs: 1 });
    expect(worker.queue.claimNext('s', 2)?.id).toBe(id);
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' } });
    expect(await main(['telemetry', 'status', '--json'], c.io)).toBe(0);
    expect(worker.queue.confirm(id)).toBe(true);
    worker.close();
  });
});
