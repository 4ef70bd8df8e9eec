import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createPostHogSink, createTelemetry } from '../../src/telemetry/runtime.js';
import { createTelemetryStore } from '../../src/telemetry/telemetry-store.js';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.js';
import { manualTime } from '../support/manual-time.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = 1_800_000_000_000;

/**
 * Bug (issue 8, item 11): after an outage telemetry drained slowly (about 5 minutes for a
 * 2-minute outage) because each batch kept its own backoff. Time runs by hand here.
 */
describe('delivery after an outage', () => {
  const temp = makeTempDir();
  let capture: CaptureServer | undefined;
  let store: Store | undefined;
  afterEach(async () => {
    store?.close();
    store = undefined;
    await capture?.close();
  });

  it.each(['error', 'down'] as const)('delivers a 2-minute outage (%s) within 30 s of recovery, each uuid once', async (mode) => {
    capture = await startCaptureServer();
    store = openStore(path.join(temp.dir, `${mode}.db`));
    const time = manualTime(T0);
    const telemetry = createTelemetry(
      { dataDir: path.join(temp.dir, mode), env: { MEMTRACE_TELEMETRY: '1' }, appVersion: '0.2.0', provider: 'replay' },
      {
        db: store.db,
        clock: time.clock,
        timers: time.timers,
        log: silentLogger,
        stderr: { write: () => true },
        sink: createPostHogSink({ apiKey: 'phc_test', host: capture.url }),
      },
    );
    const outbox = createTelemetryStore(store.db);
    let n = 0;
    const produce = (count: number) => {
      for (let i = 0; i < count; i += 1, n += 1)
        outbox.enqueue(
          { uuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, event: 'worker_stopped', properties: { uptime_s: n }, timestamp: time.now() },
          time.now(),
        );
    };
    capture.mode = mode;
    telemetry.start(T0);
    const settle = () => telemetry.deliveryIdle();
    // Two minutes of outage with events arriving all the while (a backlog of several batches).
    for (let t = 0; t < 120_000; t += 10_000) {
      produce(30);
      await time.runUntil(T0 + t + 10_000, settle);
    }
    expect(telemetry.status(time.now()).sink_state).toMatchObject({ state: 'down' });
    capture.mode = 'ok';
    const recoveredAt = time.now();
    let drainedAt: number | null = null;
    for (let t = 0; t <= 60_000 && drainedAt === null; t += 1_000) {
      await time.runUntil(recoveredAt + t, settle);
      if (telemetry.status(time.now()).outbox_depth === 0) drainedAt = time.now();
    }
    expect(drainedAt, 'the backlog was not delivered within 60 s of recovery').not.toBeNull();
    expect(drainedAt! - recoveredAt).toBeLessThanOrEqual(30_000);
    const delivered = capture.events.filter((e) => e.event === 'worker_stopped').map((e) => e.uuid);
    expect(new Set(delivered).size).toBe(n);
    expect(delivered.length).toBe(n);
    expect(telemetry.status(time.now()).sink_state).toMatchObject({ state: 'up', failures: 0 });
  });
});
