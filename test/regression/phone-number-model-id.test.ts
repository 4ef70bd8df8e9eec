import { afterEach, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { observationXml } from '../support/replies.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/**
 * Bug (issue 17, item 7): version and date parts of a model id were unbounded numbers, so
 * `gpt-4-5551-2345-9876` — a phone number behind a known family — left the machine as top_model.
 */
describe('a phone-number-shaped model id', () => {
  let capture: CaptureServer | undefined;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>> | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    await capture?.close();
    await otlp?.close();
  });

  it('reaches neither the capture server nor the OTLP receiver; top_model is other', async () => {
    capture = await startCaptureServer();
    otlp = await startOtlpReceiver();
    const model = 'gpt-4-5551-2345-9876';
    const replies = [1, 2].map((i) =>
      JSON.stringify({ text: observationXml({ type: 'bugfix', title: `t${i}` }), model, usage: { input_tokens: 5, output_tokens: 1 } }),
    );
    h = await startHarness(createReplayProvider({ lines: replies, model }), {
      env: { MEMTRACE_POSTHOG_KEY: 'phc_test', MEMTRACE_POSTHOG_HOST: capture.url, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
    });
    for (let i = 1; i <= 2; i += 1) await h.post('/api/sessions/observations', toolEvent('phone', i));
    await h.drained();
    await h.post('/api/sessions/end', { session_id: 'phone' });
    await h.stop();
    h = undefined;
    const sent = Buffer.concat([...capture.raw, ...otlp.received.map((r) => r.body)]).toString('latin1');
    expect(sent).toContain('observer_turn_rollup');
    for (const leak of ['gpt-4-5551', '5551-2345', '2345-9876']) expect(sent).not.toContain(leak);
    expect(capture.events.find((e) => e.event === 'observer_turn_rollup')?.properties.top_model).toBe('other');
  });
});
