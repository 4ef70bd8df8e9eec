import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml } from '../support/replies.js';
import { secretSamples } from '../support/secret-samples.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

describe('the guard before the observer LLM', () => {
  let h: Harness | undefined;
  let fake: FakeLlm | undefined;
  afterEach(async () => {
    await h?.stop();
    await fake?.close();
  });

  it('redacts a secret that an older version stored in a session prompt, and counts it under observer_guard', async () => {
    fake = await startFakeLlm('anthropic', { kind: 'text', text: observationXml({ type: 'discovery', title: 'Seen', narrative: 'n' }) });
    h = await startHarness(createAnthropicProvider({ apiKey: 'test-key', baseUrl: fake.url, timeoutMs: 5_000 }), {
      env: { MEMTRACE_TELEMETRY: '1' },
      loop: { concurrency: 1 },
    });
    const secret = secretSamples(31).find((s) => s.kind === 'github_token')!;
    // What a version before redaction wrote: the prompt as the hook sent it.
    h.worker.store.db.prepare("INSERT INTO sessions (session_id, status, created_at, updated_at) VALUES ('old', 'active', 1, 1)").run();
    h.worker.store.db.prepare("INSERT INTO session_prompts (session_id, prompt, created_at) VALUES ('old', ?, 1)").run(`deploy with ${secret.text}`);
    expect(
      (
        await h.post('/api/sessions/observations', {
          session_id: 'old',
          tool_use_id: 'toolu_1',
          tool_name: 'Bash',
          tool_input: { command: 'ls' },
          tool_response: { stdout: 'a.ts' },
        })
      ).status,
    ).toBe(202);
    await h.drained();
    const sent = JSON.stringify(fake.requests.map((r) => r.body));
    expect(sent).not.toContain(secret.secret);
    expect(sent).toContain('[REDACTED:github_token]');
    const window = h.worker.store.db
      .prepare("SELECT state FROM telemetry_accumulators WHERE event = 'redaction_rollup' AND key LIKE '%observer_guard%'")
      .get() as { state: string };
    expect(JSON.parse(window.state)).toMatchObject({ dims: { edge: 'observer_guard' }, counters: { github_token: 1, total: 1 } });
  });
});
