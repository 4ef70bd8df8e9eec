import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTelemetry, type Telemetry } from '../../src/telemetry/runtime.js';
import { addCounters, counterWindowKey, finalizeCounterWindow, hookDurationBucket, newCounterWindow } from '../../src/telemetry/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const WINDOW = 300_000;
const T0 = 1_700_000_100_000 - (1_700_000_100_000 % WINDOW);

describe('counter windows', () => {
  it('sum increments and ignore negative or non-finite ones', () => {
    const acc = newCounterWindow(T0, { hook_event: 'post_tool_use' });
    addCounters(acc, { count: 1, total_ms: 40.4 });
    addCounters(acc, { count: 1, total_ms: 60.2, ms_le_50: Number.NaN, timeouts: -3 });
    expect(finalizeCounterWindow(acc)).toEqual({ hook_event: 'post_tool_use', count: 2, total_ms: 101, window_start_ts: T0 });
  });

  it('key the accumulator by event and dimensions in a stable order', () => {
    expect(counterWindowKey('hook_rollup', { b: '2', a: '1' })).toBe(counterWindowKey('hook_rollup', { a: '1', b: '2' }));
    expect(counterWindowKey('hook_rollup', { a: '1' })).not.toBe(counterWindowKey('hook_rollup', { a: '2' }));
  });

  it('put each duration in exactly one bucket', () => {
    expect([0, 50, 51, 100, 249, 500, 999, 2500, 2501].map(hookDurationBucket)).toEqual([
      'ms_le_50',
      'ms_le_50',
      'ms_le_100',
      'ms_le_100',
      'ms_le_250',
      'ms_le_500',
      'ms_le_1000',
      'ms_le_2500',
      'ms_gt_2500',
    ]);
  });
});

describe('windowed counters through instrument()', () => {
  const temp = makeTempDir();
  let store: Store | undefined;
  let telemetry: Telemetry | undefined;
  afterEach(() => {
    store?.close();
    store = undefined;
  });

  function start(env: Record<string, string> = {}): Telemetry {
    store = openStore(path.join(temp.dir, `${Math.random()}.db`));
    telemetry = createTelemetry(
      { dataDir: temp.dir, env, appVersion: '0.2.0', provider: 'replay' },
      { db: store.db, clock: { now: () => T0 }, log: silentLogger, stderr: { write: () => true }, sink: null },
    );
    telemetry.start(T0);
    return telemetry;
  }

  const rollups = (t: Telemetry) => t.preview(100).filter((e) => e.event === 'hook_rollup');

  it('emit one scrubbed event per window and dimension set, once the window is over', () => {
    const t = start();
    t.recordCounters('hook_rollup', { hook_event: 'post_tool_use', install_mode: 'plugin' }, { count: 1, total_ms: 70, ms_le_100: 1 }, T0 + 1_000);
    t.recordCounters('hook_rollup', { hook_event: 'post_tool_use', install_mode: 'plugin' }, { count: 1, total_ms: 30, ms_le_50: 1 }, T0 + 2_000);
    t.recordCounters('hook_rollup', { hook_event: 'session_start', install_mode: 'plugin' }, { count: 1, total_ms: 90, ms_le_100: 1 }, T0 + 3_000);
    t.tick(T0 + 60_000);
    expect(rollups(t)).toHaveLength(0);
    t.tick(T0 + WINDOW + 1);
    const sent = rollups(t);
    expect(sent).toHaveLength(2);
    expect(sent.find((e) => e.properties.hook_event === 'post_tool_use')?.properties).toMatchObject({
      install_mode: 'plugin',
      count: 2,
      total_ms: 100,
      ms_le_50: 1,
      ms_le_100: 1,
      window_start_ts: T0,
      app_version: '0.2.0',
    });
  });

  it('close the old window when a fold lands in a new one, with distinct uuids', () => {
    const t = start();
    const dims = { hook_event: 'stop', install_mode: 'settings' };
    t.recordCounters('hook_rollup', dims, { count: 1, total_ms: 10, ms_le_50: 1 }, T0 + 1);
    t.recordCounters('hook_rollup', dims, { count: 1, total_ms: 10, ms_le_50: 1 }, T0 + WINDOW + 1);
    expect(rollups(t)).toHaveLength(1);
    t.tick(T0 + 2 * WINDOW + 1);
    const sent = rollups(t);
    expect(sent.map((e) => e.properties.window_start_ts)).toEqual([T0, T0 + WINDOW]);
    expect(new Set(sent.map((e) => e.uuid)).size).toBe(2);
  });

  it('drop dimension values outside the schema instead of sending them', () => {
    const t = start();
    t.recordCounters('hook_rollup', { hook_event: 'my-secret-project', install_mode: 'plugin' }, { count: 1 }, T0 + 1);
    t.tick(T0 + WINDOW + 1);
    expect(rollups(t)[0]?.properties).not.toHaveProperty('hook_event');
  });

  it('flush open windows at shutdown', async () => {
    const t = start();
    t.recordCounters('hook_rollup', { hook_event: 'stop', install_mode: 'plugin' }, { count: 3 }, T0 + 1);
    await t.shutdown(T0 + 2);
    expect(rollups(t)[0]?.properties.count).toBe(3);
  });

  it('accumulate nothing with telemetry off', () => {
    const t = start({ DO_NOT_TRACK: '1' });
    t.recordCounters('hook_rollup', { hook_event: 'stop', install_mode: 'plugin' }, { count: 3 }, T0 + 1);
    expect(store!.db.prepare('SELECT count(*) AS n FROM telemetry_accumulators').get()).toEqual({ n: 0 });
  });
});
