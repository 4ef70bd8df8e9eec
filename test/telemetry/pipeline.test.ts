import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { createPostHogSink, type EventSink } from '../../src/telemetry/runtime.js';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';
import { waitFor } from '../support/wait-for.js';

const REPLAY = [
  JSON.stringify({
    text: observationXml({ type: 'bugfix', title: 'a' }),
    usage: { input_tokens: 1000, output_tokens: 100 },
    cost_usd: 0.01,
    model: 'claude-haiku-4-5',
  }),
  JSON.stringify({ text: `${observationXml({ type: 'decision', title: 'b' })}${observationXml({ type: 'feature', title: 'c' })}`, model: 'claude-haiku-4-5' }),
  JSON.stringify({ text: 'Just prose here.', usage: { input_tokens: 500, output_tokens: 20 }, model: 'claude-haiku-4-5' }),
  JSON.stringify({ text: '', usage: { input_tokens: 400, output_tokens: 1 }, model: 'claude-haiku-4-5' }),
  JSON.stringify({ error: { status: 400, type: 'invalid_request_error' } }),
];

describe('telemetry pipeline through real posthog-node', () => {
  let capture: CaptureServer;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    await capture?.close();
  });

  const envFor = (extra: Record<string, string> = {}) => ({ MEMTRACE_POSTHOG_KEY: 'phc_test', MEMTRACE_POSTHOG_HOST: capture.url, ...extra });

  it('sends exactly one observer_turn_rollup per session with exact counts', async () => {
    capture = await startCaptureServer();
    h = await startHarness(createReplayProvider({ lines: REPLAY }), {
      env: envFor(),
      loop: { concurrency: 1, backoff: { baseMs: 50, capMs: 100 }, authProbe: { baseMs: 50, capMs: 100 } },
    });
    for (let i = 1; i <= 5; i += 1) await h.post('/api/sessions/observations', toolEvent('s1', i));
    await h.drained();
    await h.post('/api/sessions/end', { session_id: 's1' });
    await waitFor(() => capture.events.some((e) => e.event === 'observer_turn_rollup'));
    const rollups = capture.events.filter((e) => e.event === 'observer_turn_rollup');
    expect(rollups).toHaveLength(1);
    expect(rollups[0]!.properties).toMatchObject({
      count: 5,
      turns_parsed: 2,
      turns_dropped: 2,
      invalid_class_prose: 1,
      invalid_class_idle: 1,
      outcomes_ok: 4,
      outcomes_error: 1,
      abort_reason_bad_request: 1,
      observations_created: 3,
      obs_type_bugfix: 1,
      obs_type_decision: 1,
      obs_type_feature: 1,
      total_tokens_input: 1900,
      total_tokens_output: 121,
      turns_usage_unknown: 1,
      total_cost_usd: 0.01,
      top_model: 'claude-haiku-4-5',
      provider: 'replay',
      rollup_reason: 'session_end',
      window_seq: 0,
    });
    expect(rollups[0]!.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(rollups[0]!.distinct_id).toBe(h.worker.telemetry.installId);
  });

  it('keeps events through an outage, never makes a request wait on the sink, and delivers them when the sink returns', async () => {
    capture = await startCaptureServer();
    capture.mode = 'error';
    h = await startHarness(createReplayProvider({ lines: [REPLAY[0]!] }), { env: envFor() });
    const t = h.worker.telemetry;
    for (let i = 1; i <= 3; i += 1) await h.post('/api/sessions/observations', toolEvent('s2', i));
    await h.drained();
    await h.post('/api/sessions/end', { session_id: 's2' });
    expect((await t.flush(Date.now())).status).toBe('failed');
    // A sink that never answers, with a delivery in flight: requests must not wait on it.
    capture.mode = 'hang';
    const inFlight = t.flush(Date.now());
    // The sink answers nothing until released below: requests that waited on it would never return.
    for (let i = 10; i < 60; i += 1) expect((await h.post('/api/sessions/observations', toolEvent('s3', i))).status).toBe(202);
    capture.mode = 'down';
    capture.releaseHung();
    expect((await inFlight).status).toBe('failed');
    expect((await t.flush(Date.now() + 3_600_000)).status).toBe('failed');
    expect(t.status(Date.now()).outbox_depth).toBeGreaterThan(0);
    expect(String(t.status(Date.now()).last_flush_result)).toContain('failed');

    capture.mode = 'ok';
    const result = await t.flush(Date.now() + 3_600_000);
    expect(result.status).toBe('sent');
    expect(t.status(Date.now()).outbox_depth).toBe(0);
    expect(capture.events.filter((e) => e.event === 'observer_turn_rollup')).toHaveLength(1);
  });

  it('bounds the outbox, dropping the oldest and reporting how many', async () => {
    capture = await startCaptureServer();
    const temp = makeTempDir();
    const { openStore } = await import('../../src/store/index.js');
    const { createTelemetry } = await import('../../src/telemetry/runtime.js');
    const store = openStore(path.join(temp.dir, 'memtrace.db'));
    const t = createTelemetry(
      { dataDir: temp.dir, env: {}, appVersion: '0.1.0', provider: 'replay' },
      {
        db: store.db,
        clock: { now: () => 1_000 },
        log: (await import('../../src/log.js')).silentLogger,
        stderr: { write: () => true },
        sink: null,
        outboxLimit: 5,
      },
    );
    t.start(1_000);
    for (let i = 0; i < 10; i += 1) t.captureException(new Error(`distinct failure kind ${String.fromCharCode(97 + i)}`), 'worker', 1_000);
    expect(t.status(1_000).outbox_depth).toBe(5);
    await t.shutdown(2_000);
    const stopped = t.preview(100).find((e) => e.event === 'worker_stopped');
    expect(stopped?.properties.outbox_dropped).toBeGreaterThan(0);
    store.close();
    temp.cleanup();
  });

  it('re-sends an event with the same uuid when delivery was not confirmed', async () => {
    capture = await startCaptureServer();
    const real = createPostHogSink({ apiKey: 'phc_test', host: capture.url });
    let first = true;
    const forgetful: EventSink = {
      host: real.host,
      async send(installId, events) {
        const result = await real.send(installId, events);
        if (first) {
          first = false;
          return { ok: false, error: 'crashed before marking sent' };
        }
        return result;
      },
    };
    h = await startHarness(createReplayProvider({ lines: [REPLAY[0]!] }), { env: envFor(), telemetrySink: forgetful });
    await h.post('/api/sessions/observations', toolEvent('s4', 1));
    await h.drained();
    await h.post('/api/sessions/end', { session_id: 's4' });
    await h.worker.telemetry.flush(Date.now());
    await h.worker.telemetry.flush(Date.now() + 3_600_000);
    const rollups = capture.events.filter((e) => e.event === 'observer_turn_rollup');
    expect(rollups).toHaveLength(2);
    expect(rollups[0]!.uuid).toBe(rollups[1]!.uuid);
  });

  it('with DO_NOT_TRACK=1 sends nothing and accumulates nothing', async () => {
    capture = await startCaptureServer();
    h = await startHarness(createReplayProvider({ lines: [REPLAY[0]!] }), { env: envFor({ DO_NOT_TRACK: '1' }) });
    for (let i = 1; i <= 3; i += 1) await h.post('/api/sessions/observations', toolEvent('s5', i));
    await h.drained();
    await h.post('/api/sessions/end', { session_id: 's5' });
    await h.worker.telemetry.flush(Date.now());
    const rows = h.worker.store.db.prepare('SELECT (SELECT count(*) FROM telemetry_accumulators) + (SELECT count(*) FROM telemetry_outbox) AS n').get() as {
      n: number;
    };
    expect(rows.n).toBe(0);
    expect(capture.requests).toBe(0);
    expect(h.worker.telemetry.status(Date.now())).toMatchObject({ enabled: false, decided_by: 'DO_NOT_TRACK' });
  });

  it('turns off on a corrupt config file and says why', async () => {
    capture = await startCaptureServer();
    const temp = makeTempDir();
    fs.writeFileSync(path.join(temp.dir, 'telemetry.json'), '{not json');
    h = await startHarness(createReplayProvider({ lines: [REPLAY[0]!] }), { env: envFor(), dataDir: temp.dir });
    expect(h.worker.telemetry.status(Date.now())).toMatchObject({ enabled: false, decided_by: 'config_error' });
    expect(String(h.worker.telemetry.status(Date.now()).reason)).toContain('not valid JSON');
    await h.stop();
    h = undefined;
    expect(capture.requests).toBe(0);
    temp.cleanup();
  });

  it('in debug mode prints payloads and sends nothing', async () => {
    capture = await startCaptureServer();
    h = await startHarness(createReplayProvider({ lines: [REPLAY[0]!] }), { env: envFor({ MEMTRACE_TELEMETRY_DEBUG: '1' }) });
    await h.post('/api/sessions/observations', toolEvent('s6', 1));
    await h.drained();
    await h.post('/api/sessions/end', { session_id: 's6' });
    await h.worker.telemetry.flush(Date.now());
    expect(h.stderr()).toContain('[telemetry debug] would send');
    expect(h.stderr()).toContain('observer_turn_rollup');
    expect(capture.requests).toBe(0);
  });
});
