import { createReplayProvider } from '../src/providers/index.js';
import { startHarness, toolEvent } from '../test/support/worker-harness.js';
import { createPoster, postAtRate } from './http-poster.js';
import { summarize } from './stats.js';

export const name = 'ingest';

/** POST /api/sessions/observations at a fixed rate over loopback with a durable commit per request. */
export async function run(): Promise<Record<string, unknown>> {
  // A provider that never answers keeps the observer idle, so only ingest is measured.
  const h = await startHarness(createReplayProvider({ lines: ['{"error":{"status":401}}'] }), {
    loop: { concurrency: 1, backoff: { baseMs: 3_600_000, capMs: 3_600_000 }, authProbe: { baseMs: 3_600_000, capMs: 3_600_000 } },
  });
  const poster = createPoster(`${h.worker.url}/api/sessions/observations`, h.token);
  try {
    for (let i = 0; i < 200; i += 1) await poster.post(toolEvent(`s${i % 8}`, 1_000_000 + i, { tool_response: { content: 'x'.repeat(2_000) } })); // warm up
    const rate = 500;
    const seconds = 10;
    const started = performance.now();
    const samples = await postAtRate(poster, rate * seconds, rate, (i) => toolEvent(`s${i % 8}`, i, { tool_response: { content: 'x'.repeat(2_000) } }));
    const elapsed = (performance.now() - started) / 1000;
    return {
      rate_per_s: rate,
      seconds,
      achieved_per_s: Math.round(samples.length / elapsed),
      durable: 'WAL, synchronous=NORMAL, committed before reply',
      latency: summarize(samples),
      target_p99_ms: 5,
    };
  } finally {
    poster.close();
    await h.stop();
  }
}
