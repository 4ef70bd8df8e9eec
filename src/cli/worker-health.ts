import { runningWorker, type WorkerInfo } from '../data-dir/index.js';

export interface WorkerHealth {
  running: boolean;
  pid?: number;
  port?: number | null;
  status?: string;
  degraded?: Array<Record<string, unknown>>;
  /** The whole /health answer (queue, calls in flight, hook counters). */
  health?: Record<string, unknown>;
  error?: string;
}

/** The worker on this data dir, asked over its open /health route (no token needed, nothing private). */
export async function workerHealth(dataDir: string, timeoutMs = 1_000): Promise<WorkerHealth> {
  const info: WorkerInfo | null = runningWorker(dataDir);
  if (!info) return { running: false };
  if (!info.port) return { running: true, pid: info.pid, port: null, status: 'starting' };
  try {
    const res = await fetch(`http://127.0.0.1:${info.port}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json()) as { status?: string; degraded?: Array<Record<string, unknown>> } & Record<string, unknown>;
    return { running: true, pid: info.pid, port: info.port, status: body.status ?? 'unknown', degraded: body.degraded ?? [], health: body };
  } catch (error) {
    return { running: true, pid: info.pid, port: info.port, status: 'unreachable', error: error instanceof Error ? error.message : String(error) };
  }
}

export function describeDegraded(degraded: ReadonlyArray<Record<string, unknown>>): string {
  return degraded
    .map((d) => `${String(d.reason)}${d.next_attempt_at ? ` (next attempt ${String(d.next_attempt_at)})` : d.since ? ` (since ${String(d.since)})` : ''}`)
    .join('; ');
}
