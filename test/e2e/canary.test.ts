import { afterEach, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

/** Secrets planted in every input; not one may reach the capture server or the OTLP receiver. */
const CANARIES = {
  home: '/home/canary-user-7f3a',
  email: 'canary.mail.8d2e@example.com',
  apiKey: 'sk-ant-canary4b9c1d2e3f4a5b6c',
  prompt: 'CANARY-PROMPT-TEXT-5e6f',
  toolOutput: 'CANARY-TOOL-OUTPUT-a1b2',
  project: 'canary-project-c3d4',
  model: 'canary-model-e5f6',
  narrative: 'CANARY-NARRATIVE-77aa',
  platform: 'canary-platform-99bb',
};

describe('canary: nothing leaks through telemetry', () => {
  let capture: CaptureServer;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    await capture?.close();
    await otlp?.close();
  });

  it('keeps every planted secret out of every byte sent', async () => {
    capture = await startCaptureServer();
    otlp = await startOtlpReceiver();
    const cwd = `${CANARIES.home}/${CANARIES.project}`;
    const leaky = (extra: string) => `${CANARIES.narrative} ${CANARIES.email} ${CANARIES.apiKey} ${cwd} ${extra}`;
    const replies = [
      {
        text: observationXml({
          type: 'bugfix',
          title: leaky('title'),
          narrative: leaky('narrative'),
          facts: [leaky('fact')],
          concepts: [CANARIES.project],
          filesModified: [`${cwd}/a.ts`],
        }),
        usage: { input_tokens: 10, output_tokens: 5 },
        model: CANARIES.model,
      },
      { text: `prose ${leaky('prose')}`, model: `claude-${CANARIES.home}` },
      { text: summaryXml({ request: leaky('request'), completed: leaky('completed') }), model: CANARIES.model },
      { error: { status: 400, type: CANARIES.toolOutput } },
    ].map((r) => JSON.stringify(r));
    h = await startHarness(createReplayProvider({ lines: replies, model: CANARIES.model }), {
      env: { MEMTRACE_POSTHOG_KEY: 'phc_test', MEMTRACE_POSTHOG_HOST: capture.url, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
      loop: { concurrency: 1, backoff: { baseMs: 20, capMs: 40 }, authProbe: { baseMs: 20, capMs: 40 } },
    });
    const sid = `session-${CANARIES.email}`;
    await h.post('/api/sessions/init', { session_id: sid, project: CANARIES.project, prompt: leaky(CANARIES.prompt), platform: CANARIES.platform });
    for (let i = 0; i < 3; i += 1) {
      await h.post('/api/sessions/observations', {
        session_id: sid,
        tool_use_id: `${CANARIES.apiKey}-${i}`,
        tool_name: `Bash-${CANARIES.project}`,
        tool_input: { command: `cat ${cwd}/.env`, key: CANARIES.apiKey },
        tool_response: { stdout: leaky(CANARIES.toolOutput) },
        cwd,
      });
    }
    await h.post('/api/sessions/summarize', { session_id: sid, last_assistant_message: leaky(CANARIES.prompt) });
    await h.drained();
    await h.get(`/api/context/inject?project=${encodeURIComponent(CANARIES.project)}&budget_tokens=500`);
    await h.post('/api/sessions/end', { session_id: sid });
    h.worker.telemetry.captureException(new Error(`failed reading ${cwd}/secrets.json for ${CANARIES.email} with ${CANARIES.apiKey}`), 'worker', Date.now());
    const installId = h.worker.telemetry.installId;
    await h.stop();
    h = undefined;

    expect(capture.events.map((e) => e.event)).toEqual(
      expect.arrayContaining(['worker_started', 'observer_turn_rollup', 'context_injected_rollup', 'worker_stopped', '$exception']),
    );
    expect(otlp.received.some((r) => r.path === '/v1/metrics')).toBe(true);
    expect(otlp.received.some((r) => r.path === '/v1/traces')).toBe(true);
    const sent = Buffer.concat([...capture.raw, ...otlp.received.map((r) => r.body)]).toString('latin1');
    // The search itself works: what is meant to be sent is found in the same bytes.
    expect(sent).toContain(installId);
    expect(sent).toContain('observer_turn_rollup');
    expect(sent).toContain('gen_ai.client.token.usage');
    const leaks = Object.entries({ ...CANARIES, home: 'canary-user-7f3a', cwdTail: 'canary-project' }).filter(([, value]) => sent.includes(value));
    expect(leaks).toEqual([]);
  });
});
