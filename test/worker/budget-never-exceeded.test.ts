import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { DEFAULT_BATCH_LIMITS } from '../../src/worker/batch-policy.js';
import { captureIO } from '../support/cli-io.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml } from '../support/replies.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

const BUDGET = 200_000;
const DAY_MS = 86_400_000;

/**
 * MEMTRACE_OBSERVER_BUDGET_TOKENS is never exceeded, by construction: a call is started only when
 * its bound (prompt bytes + framing + the output cap) fits in what is left of the UTC day. The
 * fake provider here answers every call with the most a call can use — exactly its bound — so if
 * the worker ever started a call that did not fit, the day's total would cross the budget.
 */
describe('the daily observer budget, in the worker', () => {
  let fake: FakeLlm;
  let h: Harness;
  afterEach(async () => {
    await h?.stop();
    await fake?.close();
  });

  it('is never exceeded; past it events wait in the queue, status says paused, and the next UTC day resumes', async () => {
    fake = await startFakeLlm('anthropic', {
      kind: 'dynamic',
      respond: (body) => {
        const bytes = Buffer.byteLength(body.system[0].text) + body.messages.reduce((n: number, m: { content: string }) => n + Buffer.byteLength(m.content), 0);
        return { kind: 'text', text: observationXml({ type: 'change', title: 'observed' }), usage: { input: bytes + 64, output: body.max_tokens } };
      },
    });
    let now = Date.UTC(2026, 10, 27, 10);
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: fake.url }), {
      env: { MEMTRACE_TELEMETRY: '0', MEMTRACE_OBSERVER_BUDGET_TOKENS: String(BUDGET) },
      clock: { now: () => now },
      batch: DEFAULT_BATCH_LIMITS,
    });
    const bigOutput = (n: number) => ({ stdout: `${n} `.repeat(2_000) });
    for (let turn = 0; turn < 12; turn += 1) {
      const session = `s${turn}`;
      for (let i = 0; i < 8; i += 1)
        await h.post(
          '/api/sessions/observations',
          toolEvent(session, turn * 10 + i, { tool_name: 'Bash', tool_input: { command: `make ${i}` }, tool_response: bigOutput(i) }),
        );
      await h.post('/api/sessions/summarize', { session_id: session, last_assistant_message: `turn ${turn} done` });
    }
    await waitFor(async () => JSON.parse((await h.get('/health')).text).observer.state === 'paused', 20_000);
    await waitFor(async () => JSON.parse((await h.get('/health')).text).in_flight === 0, 20_000);

    const counted = () =>
      h.worker.store.db
        .prepare('SELECT coalesce(sum(tokens_in + tokens_out), 0) AS n, count(*) AS calls FROM observer_calls WHERE day = ?')
        .get('2026-11-27') as {
        n: number;
        calls: number;
      };
    const day1 = counted();
    expect(day1.calls).toBeGreaterThan(1);
    expect(day1.calls).toBe(fake.requests.length);
    expect(day1.n).toBeLessThanOrEqual(BUDGET);
    // Nothing lost: what was not observed waits, unclaimed and without a counted attempt.
    const waiting = h.worker.store.db.prepare("SELECT count(*) AS n, max(attempts) AS attempts FROM queue WHERE status = 'pending'").get() as {
      n: number;
      attempts: number;
    };
    expect(waiting.n).toBeGreaterThan(0);
    expect(waiting.attempts).toBe(0);
    const health = JSON.parse((await h.get('/health')).text);
    expect(health.observer).toMatchObject({ state: 'paused', paused: { reason: 'daily_budget', resume_at: '2026-11-28T00:00:00.000Z' } });
    const status = captureIO({ env: { MEMTRACE_DATA_DIR: h.dataDir, HOME: h.dataDir } });
    await main(['worker', 'status'], status.io);
    expect(status.stdout()).toContain('observer paused: daily budget reached');

    // The UTC day turns: observing resumes, within the new day's budget.
    now += DAY_MS;
    await h.post('/api/sessions/observations', toolEvent('next-day', 1_000));
    await h.post('/api/sessions/summarize', { session_id: 'next-day', last_assistant_message: 'done' });
    await waitFor(() => fake.requests.length > day1.calls, 20_000);
    await waitFor(async () => JSON.parse((await h.get('/health')).text).in_flight === 0, 20_000);
    expect(counted().n).toBe(day1.n);
    const day2 = h.worker.store.db.prepare("SELECT coalesce(sum(tokens_in + tokens_out), 0) AS n FROM observer_calls WHERE day = '2026-11-28'").get() as {
      n: number;
    };
    expect(day2.n).toBeGreaterThan(0);
    expect(day2.n).toBeLessThanOrEqual(BUDGET);
  });
});
