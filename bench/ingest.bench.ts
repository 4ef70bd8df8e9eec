import http from 'node:http';
import { createReplayProvider } from '../src/providers/index.js';
import { startHarness, toolEvent } from '../test/support/worker-harness.js';
import { summarize } from './stats.js';

export const name = 'ingest';

/** POST /api/sessions/observations at a fixed rate over loopback with a durable commit per request. */
export async function run(): Promise<Record<string, unknown>> {
  // A provider that never answers keeps the observer idle, so only ingest is measured.
  const h = await startHarness(createReplayProvider({ lines: ['{"error":{"status":401}}'] }), { loop: { concurrency: 1, backoff: { baseMs: 3_600_000, capMs: 3_600_000 }, authProbe: { baseMs: 3_600_000, capMs: 3_600_000 } } });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const url = new URL(`${h.worker.url}/api/sessions/observations`);
  const send = (i: number) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify(toolEvent(`s${i % 8}`, i, { tool_response: { content: 'x'.repeat(2_000) } }));
      const started = performance.now();
      const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${h.token}`, 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 202 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  try {
    for (let i = 0; i < 200; i += 1) await send(1_000_000 + i); // warm up
    const rate = 500;
    const seconds = 10;
    const samples: number[] = [];
    const pending: Promise<void>[] = [];
    const started = performance.now();
    for (let i = 0; i < rate * seconds; i += 1) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(send(i).then((ms) => void samples.push(ms)));
    }
    await Promise.all(pending);
    const elapsed = (performance.now() - started) / 1000;
    return { rate_per_s: rate, seconds, achieved_per_s: Math.round(samples.length / elapsed), durable: 'WAL, synchronous=NORMAL, committed before reply', latency: summarize(samples), target_p99_ms: 5 };
  } finally {
    agent.destroy();
    await h.stop();
  }
}
