import { afterEach, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { normalizeModelId, scrubProperties } from '../../src/telemetry/index.js';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { observationXml } from '../support/replies.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/**
 * Bug (issue 8, item 4): a known family name followed by anything passed as a model id, so
 * `claude-acme-secret` left the machine as top_model, an OTLP span name and gen_ai.request.model.
 */
describe('model ids with free text', () => {
  let capture: CaptureServer | undefined;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>> | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    await capture?.close();
    await otlp?.close();
  });

  it.each([
    'claude-acme-secret',
    'gpt-4o-canarycorp-private-finetune',
    'gemini-2.5-flash-mycompany',
    'ft:gpt-4o-mini:acme:support:abc123',
    'llama-3.1-70b-instruct-internal',
  ])('maps %s to other in every exporter', (raw) => {
    expect(normalizeModelId(raw)).toBe('other');
    expect(scrubProperties('observer_turn_rollup', { top_model: raw })?.properties).not.toHaveProperty('top_model');
  });

  it('never reach the capture server or the OTLP receiver', async () => {
    capture = await startCaptureServer();
    otlp = await startOtlpReceiver();
    const replies = [
      { text: observationXml({ type: 'bugfix', title: 'a' }), model: 'claude-acme-secret', usage: { input_tokens: 5, output_tokens: 1 } },
      { text: observationXml({ type: 'bugfix', title: 'b' }), model: 'gpt-4o-canarycorp-private-finetune', usage: { input_tokens: 5, output_tokens: 1 } },
    ].map((r) => JSON.stringify(r));
    h = await startHarness(createReplayProvider({ lines: replies, model: 'claude-acme-secret' }), {
      env: { MEMTRACE_POSTHOG_KEY: 'phc_test', MEMTRACE_POSTHOG_HOST: capture.url, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
    });
    for (let i = 1; i <= 2; i += 1) await h.post('/api/sessions/observations', toolEvent('m', i));
    await h.drained();
    await h.post('/api/sessions/end', { session_id: 'm' });
    await h.stop();
    h = undefined;
    const sent = Buffer.concat([...capture.raw, ...otlp.received.map((r) => r.body)]).toString('latin1');
    expect(sent).toContain('observer_turn_rollup');
    for (const leak of ['acme', 'canarycorp', 'private-finetune']) expect(sent).not.toContain(leak);
    expect(capture.events.find((e) => e.event === 'observer_turn_rollup')?.properties.top_model).toBe('other');
  });
});
