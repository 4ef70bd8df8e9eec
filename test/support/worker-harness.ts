import { createMemoryLogger } from '../../src/log.js';
import { loadWorkerConfig } from '../../src/config.js';
import type { ObserverProvider } from '../../src/providers/types.js';
import { startWorker, type RunningWorker, type WorkerOptions } from '../../src/worker/runtime.js';
import { makeTempDir } from './temp-dir.js';
import { readAuthToken } from '../../src/data-dir/index.js';

export interface Harness {
  worker: RunningWorker;
  dataDir: string;
  log: ReturnType<typeof createMemoryLogger>;
  stderr: () => string;
  /** The install's API token, sent by post/get. */
  token: string;
  post(route: string, body: unknown): Promise<{ status: number; json: any }>;
  get(route: string): Promise<{ status: number; text: string }>;
  /** Polls (real time, bounded) until the queue is empty and nothing is in flight. */
  drained(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Batches that close as soon as they are looked at (whatever is pending goes in one call). */
export const IMMEDIATE_BATCHES = { maxEvents: 40, maxTokens: 8_000, maxWaitMs: 0 } as const;

/** A real worker on a loopback port with a temp SQLite file. */
export async function startHarness(
  provider: ObserverProvider,
  options: Partial<WorkerOptions> & { env?: Record<string, string | undefined>; dataDir?: string } = {},
): Promise<Harness> {
  const temp = options.dataDir ? null : makeTempDir();
  const dataDir = options.dataDir ?? temp!.dir;
  const loaded = loadWorkerConfig({ ...options.env, MEMTRACE_PORT: '0' }, '/nonexistent', { dataDir });
  if (!loaded.ok) throw new Error(loaded.errors.join());
  const log = createMemoryLogger();
  let stderr = '';
  const worker = await startWorker({
    config: loaded.config,
    env: options.env ?? { MEMTRACE_TELEMETRY: '0' },
    provider,
    log,
    stderr: {
      write: (s: string) => {
        stderr += s;
        return true;
      },
    },
    ...(options.loop ? { loop: options.loop } : {}),
    ...(options.observers ? { observers: options.observers } : {}),
    // A test's events close their batch at once unless it says otherwise: most tests post a few
    // tool events without a Stop and wait for them; the batching itself is tested on its own.
    batch: options.batch ?? IMMEDIATE_BATCHES,
    ...(options.telemetrySink !== undefined ? { telemetrySink: options.telemetrySink } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.tickMs ? { tickMs: options.tickMs } : {}),
    ...(options.commitVerifier ? { commitVerifier: options.commitVerifier } : {}),
    ...(options.watch ? { watch: options.watch } : {}),
    ...(options.redactBody ? { redactBody: options.redactBody } : {}),
    ...(options.retention ? { retention: options.retention } : {}),
    ...(options.timers ? { timers: options.timers } : {}),
    ...(options.share ? { share: options.share } : {}),
  });
  const token = readAuthToken(dataDir)!;
  const auth = { authorization: `Bearer ${token}` };
  return {
    worker,
    dataDir,
    log,
    token,
    stderr: () => stderr,
    async post(route, body) {
      const res = await fetch(`${worker.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: await res.json().catch(() => null) };
    },
    async get(route) {
      const res = await fetch(`${worker.url}${route}`, { headers: auth });
      return { status: res.status, text: await res.text() };
    },
    async drained(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const health = (await (await fetch(`${worker.url}/health`)).json()) as { queue_depth: number; in_flight: number };
        if (health.queue_depth === 0 && health.in_flight === 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`queue not drained within ${timeoutMs} ms`);
    },
    async stop() {
      await worker.stop();
      temp?.cleanup();
    },
  };
}

export function toolEvent(sessionId: string, n: number, extra: Record<string, unknown> = {}) {
  return {
    session_id: sessionId,
    tool_use_id: `toolu_${n}`,
    tool_name: 'Read',
    tool_input: { file_path: `src/file${n}.ts` },
    tool_response: { content: `contents ${n}` },
    cwd: '/work/app',
    ...extra,
  };
}
