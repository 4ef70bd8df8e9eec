/**
 * A hook's latency while something else runs (issue 36): a real PostToolUse posted to the
 * worker's socket the way the forwarder posts it (`POST /hook/claude-code/post-tool-use`), one
 * after another with a short gap, each a new tool_use_id so the worker stores every one. The
 * worker answers only once the event is committed, so a write lock held elsewhere (another
 * process's long transaction) or a long synchronous step inside the worker shows up here as
 * delay.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { roundedPercentile } from './stats.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const GAP_MS = 20;

export interface HookLatency {
  hooks: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
  refused: number;
  /** Answered once the event waited in the worker's spool: the write lock was another process's (src/worker/busy-spill.ts). */
  spooled: number;
}

function post(socketPath: string, body: string): Promise<{ status: number; ms: number; spooled: boolean }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath,
        path: '/hook/claude-code/post-tool-use',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-memtrace-hook-via': 'settings' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, spooled: res.headers['x-memtrace-spooled'] === '1' }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One hook: when it was posted (epoch ms), how long its answer took, and its status. */
export interface HookSample {
  at: number;
  ms: number;
  status: number;
  spooled: boolean;
}

/** Posts hooks to the worker of `dataDir` until `work` settles; the latencies seen meanwhile (and each sample, for a window of them). */
export async function hookLatencyDuring<T>(dataDir: string, work: () => Promise<T>): Promise<{ result: T; latency: HookLatency; samples: HookSample[] }> {
  const payload = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/claude-code/hooks/post-tool-use-read.json'), 'utf8')) as Record<string, unknown>;
  const socket = path.join(dataDir, 'worker.sock');
  const samples: HookSample[] = [];
  let done = false;
  let n = 0;
  const loop = (async () => {
    while (!done) {
      n += 1;
      const at = Date.now();
      const { status, ms, spooled } = await post(
        socket,
        JSON.stringify({ ...payload, session_id: 'bench-hook-probe', tool_use_id: `toolu_probe_${process.pid}_${Date.now()}_${n}` }),
      );
      samples.push({ at, ms, status, spooled });
      await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    }
  })();
  try {
    const result = await work();
    return { result, latency: hookSummary(samples), samples };
  } finally {
    done = true;
    await loop;
  }
}

export function hookSummary(hooks: readonly HookSample[]): HookLatency {
  const samples = hooks.map((h) => h.ms);
  const refused = hooks.filter((h) => h.status >= 300).length;
  return {
    hooks: samples.length,
    p50_ms: roundedPercentile(samples, 50),
    p95_ms: roundedPercentile(samples, 95),
    max_ms: roundedPercentile(samples, 100),
    refused,
    spooled: hooks.filter((h) => h.spooled).length,
  };
}
